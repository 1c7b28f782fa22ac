import { open, readdir, readFile, rm, stat, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import type { Category, Sample } from '../contract.js';
import type { Logger } from '../log.js';
import { WAV_HEADER_BYTES, wavHeader } from '../samples/formats/wav.js';
import type { SampleStore } from '../samples/sample-store.js';
import { readSigningKey, type SigningKey } from '../secrets/signing-key.js';
import { completeRows } from './recording-rows.js';
import { writeAcquisition, type RecordingHeader } from './sensor-recorder.js';

export { completeRows };

/** Where sensor recordings stream their rows while they run (see SensorRecorder). */
export const RECORDINGS_DIR = 'recordings';

interface StoredHeader extends RecordingHeader {
  started?: string;
  pid?: number;
}

/** Written beside `<id>.wav` when a microphone recording starts; removed once it is saved. */
export interface AudioRecordingNote {
  label: string | null;
  category: Category;
  metadata: Record<string, string>;
  sampleRate: number;
  device: string;
  started: string;
  /** The process recording it: while that one lives (a CLI recording beside the app), hands off. */
  pid: number;
}

/**
 * A sensor recording that was running when the process died (kill -9, power cut, a crash) left
 * `<id>.json` (label, category, metadata, axes) and `<id>.rows` (every row appended so far) in
 * the recordings folder. At start these become incomplete samples, kept local for the user to
 * look at: nothing a person recorded is lost because the app did not get to press Stop.
 * Runs before this process records anything; a recording whose process still lives (the CLI
 * recording into the same data folder) is left alone.
 */
export async function recoverRecordings(store: SampleStore, log: Logger, hmacKey: () => Promise<string | undefined>): Promise<Sample[]> {
  const dir = join(store.dataDir, RECORDINGS_DIR);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const recovered: Sample[] = [];
  // Read once, and only when a sensor recording is there to sign.
  let signing: Promise<SigningKey> | undefined;
  const signingKey = () => (signing ??= readSigningKey(hmacKey, log, 'recordings recovered after the app stopped'));
  for (const f of names.filter((n) => n.endsWith('.json'))) {
    const audio = f.endsWith('.audio.json');
    const id = f.slice(0, -(audio ? '.audio.json' : '.json').length);
    const dataFile = join(dir, audio ? `${id}.wav` : `${id}.rows`);
    try {
      const { pid } = JSON.parse(await readFile(join(dir, f), 'utf8')) as { pid?: unknown };
      if (typeof pid === 'number' && pid !== process.pid && alive(pid)) continue; // still being recorded
      const sample = audio ? await recoverAudio(store, join(dir, f), dataFile, id) : await recoverOne(store, join(dir, f), dataFile, id, signingKey);
      if (sample) {
        recovered.push(sample);
        log.warn('recovered a recording interrupted by a stop of the app', { name: sample.name, rows: sample.extra['rows'] });
      }
      await rm(dataFile, { force: true });
      await rm(join(dir, f), { force: true });
    } catch (err) {
      // Left in place for the next start (or a person) rather than deleted: it may be the only copy.
      log.error('could not recover an interrupted recording; its files are kept', { id, dir, error: String(err) });
    }
  }
  return recovered;
}

async function recoverOne(store: SampleStore, headerFile: string, rowsFile: string, id: string, signingKey: () => Promise<SigningKey>): Promise<Sample | null> {
  const header = JSON.parse(await readFile(headerFile, 'utf8')) as StoredHeader;
  const width = header.sensors.length;
  let info;
  try {
    info = await stat(rowsFile);
  } catch {
    return null; // the header was written but not one row: nothing to keep
  }
  const { rows, bytes } = completeRows(await readFile(rowsFile), width);
  if (rows === 0) return null;
  // The process may have died in the middle of writing a row: keep only whole ones.
  if (bytes < info.size) await truncate(rowsFile, bytes);
  const intervalMs = intervalOf(header, rows, info.mtimeMs);
  const ctx = header.context as { label?: string | null; category?: Category; metadata?: Record<string, string>; sourceId?: string };
  const label = ctx.label ?? null;
  const reserved = store.reserveFile('.cbor');
  const { key, unsigned } = await signingKey();
  await writeAcquisition(reserved.tempPath, rowsFile, rows, header, { intervalMs, hmacKey: key });
  return store.commitFile(reserved, {
    name: `${label ?? 'unlabeled'}.${id.slice(0, 8)}.cbor`,
    kind: 'sensor',
    label,
    category: ctx.category ?? 'training',
    metadata: ctx.metadata ?? {},
    lengthMs: rows * intervalMs,
    incomplete: true,
    queue: false,
    note: unsigned ? `${NOTE} It was ${unsigned}.` : NOTE,
    extra: { rows, interval_ms: intervalMs, recovered: true, ...(ctx.sourceId ? { source: ctx.sourceId } : {}) },
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
}

const NOTE = 'incomplete: the app stopped during this recording; recovered at the next start. Check it before uploading.';

/** A microphone recording: the WAV holds every whole frame written; its header is made to match. */
async function recoverAudio(store: SampleStore, noteFile: string, wavFile: string, id: string): Promise<Sample | null> {
  const note = JSON.parse(await readFile(noteFile, 'utf8')) as AudioRecordingNote;
  let size: number;
  try {
    size = (await stat(wavFile)).size;
  } catch {
    return null;
  }
  const frames = Math.floor(Math.max(0, size - WAV_HEADER_BYTES) / 2);
  if (frames === 0) return null;
  // The crash may have come between a write of audio and the header's update, or mid-frame.
  await truncate(wavFile, WAV_HEADER_BYTES + frames * 2);
  const fh = await open(wavFile, 'r+');
  try {
    await fh.write(wavHeader(note.sampleRate, 1, frames * 2), 0, WAV_HEADER_BYTES, 0);
    await fh.sync();
  } finally {
    await fh.close();
  }
  return store.commitFile({ id, tempPath: wavFile }, {
    name: `${note.label ?? 'unlabeled'}.${id.slice(0, 8)}.wav`,
    kind: 'audio',
    label: note.label,
    category: note.category,
    metadata: note.metadata,
    lengthMs: (frames * 1000) / note.sampleRate,
    incomplete: true,
    queue: false,
    note: NOTE,
    extra: { rows: frames, interval_ms: 1000 / note.sampleRate, sample_rate: note.sampleRate, device: note.device, recovered: true },
  });
}

/** The stream's rate when the recording started; else the rows spread over the time it ran. */
function intervalOf(header: StoredHeader, rows: number, lastWriteMs: number): number {
  const declared = (header.context as { intervalMs?: unknown }).intervalMs;
  if (typeof declared === 'number' && declared > 0) return declared;
  const started = header.started ? Date.parse(header.started) : NaN;
  const spanMs = lastWriteMs - started;
  return Number.isFinite(spanMs) && spanMs > 0 ? spanMs / rows : 1;
}
