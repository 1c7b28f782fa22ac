import { createHash } from 'node:crypto';
import { open, rm } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import type { Sample, StructuredLabel } from '../contract/contract.js';
import { encodeAcquisition } from '../samples/formats/acquisition.js';
import { encodeWav } from '../samples/formats/wav.js';
import { interleave } from '../samples/formats/wav-pcm.js';
import type { NewSample } from '../samples/new-sample.js';
import type { SampleStore } from '../samples/sample-store.js';
import type { Decoded } from './decoded.js';
import { throwIfCancelled } from '../jobs.js';
import { clipLabels, type RowWindow } from './windows.js';

export interface DeriveOptions {
  /** The project's HMAC key: results of a signed sample are signed with it (else alg "none"). */
  hmacKey?: string | undefined;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
  /** "crop" or "split": shown in names and in the note of each new sample. */
  how: 'crop' | 'split';
}

/**
 * Writes each window as a new sample beside the original: every file first (to temp paths),
 * then every index row in one transaction. A cancel or a failure on the way removes what was
 * written, so the user sees all the new samples or none.
 */
export async function deriveSamples(store: SampleStore, original: Sample, d: Decoded, windows: RowWindow[], o: DeriveOptions): Promise<Sample[]> {
  const outExt = d.kind === 'audio' ? '.wav' : extname(original.name).toLowerCase() === '.json' ? '.json' : '.cbor';
  const stem = basename(original.name, extname(original.name));
  const digits = String(windows.length).length;
  const written: Array<Parameters<SampleStore['commitFiles']>[0][number]> = [];
  const what = o.how === 'crop' ? 'The crop' : 'The split';
  const nameOf = (i: number, run: number) => {
    const w = windows[i]!;
    const suffix = o.how === 'crop' ? 'crop' : w.label !== undefined ? `e${String(i + 1).padStart(digits, '0')}` : `w${String(i + 1).padStart(digits, '0')}`;
    // The platform takes the label from the name up to the first dot: keep the event's label first.
    return `${w.label !== undefined ? `${safe(w.label)}.` : ''}${stem}.${suffix}${run > 1 ? `-${run}` : ''}${outExt}`;
  };
  // Cropping or splitting the same sample again numbers the new run (.crop-2) instead of
  // repeating names, so every sample in the list (and its export) keeps a name of its own.
  let run = 1;
  while (run < 1000 && store.namesTaken(windows.map((_, i) => nameOf(i, run))).size > 0) run++;
  try {
    for (let i = 0; i < windows.length; i++) {
      throwIfCancelled(o.signal, what);
      const w = windows[i]!;
      const bytes = encode(d, w, outExt === '.json' ? 'json' : 'cbor', o.hmacKey);
      const name = nameOf(i, run);
      const reserved = store.reserveFile(outExt);
      await writeSynced(reserved.tempPath, bytes);
      written.push({ reserved, input: newSample(original, d, w, name, o.how), bytes: bytes.byteLength, sha256: createHash('sha256').update(bytes).digest('hex') });
      o.onProgress?.(i + 1, windows.length);
      // Let a cancel (or anything else) in between files; the writes above are quick.
      if (i % 8 === 7) await new Promise((r) => setImmediate(r));
    }
    throwIfCancelled(o.signal, what);
  } catch (err) {
    for (const it of written) await rm(it.reserved.tempPath, { force: true });
    throw err;
  }
  return store.commitFiles(written);
}

function newSample(original: Sample, d: Decoded, w: RowWindow, name: string, how: 'crop' | 'split'): NewSample {
  // Around an event the whole window is that event; fixed windows keep the events they cut through.
  const structured: StructuredLabel[] | null = w.label !== undefined ? null : clipLabels(original.structuredLabels, w);
  const rows = w.to - w.from;
  return {
    name,
    kind: original.kind,
    label: w.label ?? original.label,
    category: original.category,
    metadata: { ...original.metadata },
    boundingBoxes: [],
    structuredLabels: structured,
    lengthMs: rows * d.intervalMs,
    note: null,
    extra: { rows, interval_ms: d.intervalMs, derived_from: original.id, derived_by: how, window_ms: [w.from * d.intervalMs, w.to * d.intervalMs] },
  };
}

function encode(d: Decoded, w: RowWindow, format: 'json' | 'cbor', hmacKey: string | undefined): Buffer {
  if (d.kind === 'audio') return encodeWav(interleave(d.columns as Int16Array[], w.from, w.to), { sampleRate: d.sampleRate!, channels: d.columns.length });
  const a = d.acquisition!;
  const values: number[][] = new Array(w.to - w.from);
  for (let i = w.from; i < w.to; i++) {
    const row = new Array<number>(d.columns.length);
    for (let c = 0; c < d.columns.length; c++) row[c] = d.columns[c]![i]!;
    values[i - w.from] = row;
  }
  const sign = a.alg === 'HS256' && hmacKey ? { hmacKey } : {};
  return encodeAcquisition(
    { ...(a.iat === undefined ? {} : { protected: { iat: a.iat } }), payload: { ...(a.deviceName === undefined ? {} : { device_name: a.deviceName }), device_type: a.deviceType, interval_ms: a.intervalMs, sensors: a.sensors, values } },
    { format, ...sign },
  );
}

function safe(label: string): string {
  return label.replace(/[^\p{L}\p{N}_-]+/gu, '_').slice(0, 64) || 'event';
}

async function writeSynced(path: string, bytes: Uint8Array): Promise<void> {
  const fh = await open(path, 'wx', 0o600);
  try {
    await fh.write(bytes);
    await fh.sync();
  } finally {
    await fh.close();
  }
}
