import { open, readdir, readFile, rm, stat, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import type { Category, Sample } from '../contract/contract.js';
import type { Logger } from '../log.js';
import { WAV_HEADER_BYTES, wavHeader } from '../samples/formats/wav.js';
import type { SampleStore } from '../samples/sample-store.js';
import { RECORDINGS_DIR, type AudioRecordingNote } from '../recordings/recordings-folder.js';
import { readSigningKey, type SigningKey } from '../secrets/signing-key.js';
import { measureRecordedRate, PLACEHOLDER_INTERVAL_MS, RATE_MISSING_NOTE, shortStretchNote } from './recorded-rate.js';
import { completeRows, completeRowsIn } from './recording-rows.js';
import { writeAcquisition, type RecordingHeader } from './sensor-recorder.js';
import { takeName } from '../samples/take-name.js';

export { completeRows };

interface StoredHeader extends RecordingHeader {
  started?: string;
  pid?: number;
}

/**
 * A sensor recording that was running when the process died (kill -9, power cut, a crash) left
 * `<id>.json` (label, category, metadata, axes) and `<id>.rows` (every row appended so far) in
 * the recordings folder. At start these become incomplete samples, kept local for the user to
 * look at: nothing a person recorded is lost because the app did not get to press Stop.
 * A rate that was being measured (a numeric-line board with no rate given) is measured again
 * from the arrival times kept with the rows (`<id>.times`), as the reader would have at Stop;
 * a given rate, and recordings from before those times were kept, keep the header's interval.
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
      const timesFile = join(dir, `${id}.times`);
      const beginFile = join(dir, `${id}.begin`);
      const sample = audio ? await recoverAudio(store, join(dir, f), dataFile, id) : await recoverOne(store, join(dir, f), dataFile, timesFile, beginFile, id, signingKey);
      if (sample) {
        recovered.push(sample);
        log.warn('recovered a recording interrupted by a stop of the app', { name: sample.name, rows: sample.extra['rows'], intervalMs: sample.extra['interval_ms'] });
      }
      await rm(dataFile, { force: true });
      if (!audio) await rm(timesFile, { force: true });
      if (!audio) await rm(join(dir, `${id}.begin`), { force: true });
      await rm(join(dir, f), { force: true });
    } catch (err) {
      // Left in place for the next start (or a person) rather than deleted: it may be the only copy.
      log.error('could not recover an interrupted recording; its files are kept', { id, dir, error: String(err) });
    }
  }
  return recovered;
}

/**
 * Where the take began in the rows file (SensorRecorder.beginTakeHere): rows recorded while a
 * session's other sources started are not the take's, as in a finished one. None when the take
 * began with the recording, or when its first row never reached the disk (then every row is kept).
 * A file that cannot be read as such (cut short by the crash, or damaged) does not hold the take
 * back: every row is kept and `unreadable` says why, for the take's note.
 */
async function takeBegin(beginFile: string, bytesOnDisk: number): Promise<{ rows: number; bytes: number; unreadable?: string }> {
  let text: string;
  try {
    text = await readFile(beginFile, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { rows: 0, bytes: 0 };
    return { rows: 0, bytes: 0, unreadable: String(err) };
  }
  const b = parseBegin(text);
  if (!b) return { rows: 0, bytes: 0, unreadable: `${beginFile} does not say where the take began (${JSON.stringify(text.slice(0, 80))})` };
  return b.bytes < bytesOnDisk ? b : { rows: 0, bytes: 0 };
}

function parseBegin(text: string): { rows: number; bytes: number } | null {
  let b: unknown;
  try {
    b = JSON.parse(text);
  } catch {
    return null;
  }
  const { rows, bytes } = (b ?? {}) as { rows?: unknown; bytes?: unknown };
  return typeof rows === 'number' && typeof bytes === 'number' && Number.isInteger(rows) && rows >= 0 && bytes >= 0 ? { rows, bytes } : null;
}

/** Said in a recovered take's note when its .begin could not be read. */
const BEGIN_UNREADABLE_NOTE =
  'Where the take began could not be read, so it may start with rows recorded while the session waited for its other sources: crop its start (Crop in the sample view) before uploading.';

async function recoverOne(store: SampleStore, headerFile: string, rowsFile: string, timesFile: string, beginFile: string, id: string, signingKey: () => Promise<SigningKey>): Promise<Sample | null> {
  const header = JSON.parse(await readFile(headerFile, 'utf8')) as StoredHeader;
  const width = header.sensors.length;
  let info;
  try {
    info = await stat(rowsFile);
  } catch {
    return null; // the header was written but not one row: nothing to keep
  }
  const whole = await completeRowsIn(rowsFile, width);
  if (whole.rows === 0) return null;
  // The process may have died in the middle of writing a row: keep only whole ones.
  if (whole.bytes < info.size) await truncate(rowsFile, whole.bytes);
  const skip = await takeBegin(beginFile, whole.bytes);
  const rows = whole.rows - skip.rows;
  const ctx = header.context as { label?: string | null; category?: Category; metadata?: Record<string, string>; sourceId?: string; rateMeasured?: unknown };
  const label = ctx.label ?? null;
  const common = {
    name: takeName(label, `${id.slice(0, 8)}.cbor`),
    kind: 'sensor' as const,
    label,
    category: ctx.category ?? 'training',
    metadata: ctx.metadata ?? {},
    incomplete: true,
    queue: false,
  };
  const base = { rows, recovered: true, ...(ctx.sourceId ? { source: ctx.sourceId } : {}), ...(skip.rows ? { rows_before_take: skip.rows } : {}), ...(skip.unreadable ? { take_begin_unreadable: skip.unreadable } : {}) };
  const beginNote = skip.unreadable ? BEGIN_UNREADABLE_NOTE : null;
  let intervalMs: number | null;
  let rateNote: string | null = null;
  let rateExtra: Record<string, unknown> = {};
  if (ctx.rateMeasured === true) {
    // The header's interval is only the first lines' estimate: measure again from these rows' arrivals.
    // Over every row's arrival, those before the take began too: the same stream, a longer stretch.
    const measured = await measureRecordedRate(timesFile, whole.rows);
    intervalMs = measured?.frequencyHz ? 1000 / measured.frequencyHz : null;
    if (measured) {
      const s = measured.snapshot;
      rateExtra = { frequency_hz: measured.frequencyHz, jitter_ms: s.jitterMs, dropped_lines: s.droppedLines, rate_measured_at_recovery: true, rate_relative_error: s.relativeError };
      rateNote = shortStretchNote(measured);
    }
  } else intervalMs = intervalOf(header, rows, info.mtimeMs);
  const reserved = store.reserveFile('.cbor');
  if (intervalMs === null) {
    // As a finished take whose rate could not be measured: every row kept, waiting for its rate (set-rate.ts).
    await writeAcquisition(reserved.tempPath, rowsFile, rows, header, { intervalMs: PLACEHOLDER_INTERVAL_MS }, skip.bytes);
    return store.commitFile(reserved, {
      ...common,
      lengthMs: null,
      note: [`${NOTE}; ${RATE_MISSING_NOTE}`, beginNote].filter(Boolean).join(' '),
      extra: { ...base, interval_ms: null, ...rateExtra, frequency_hz: null, rate_missing: true, interrupted: true },
    });
  }
  const { key, unsigned } = await signingKey();
  await writeAcquisition(reserved.tempPath, rowsFile, rows, header, { intervalMs, hmacKey: key }, skip.bytes);
  return store.commitFile(reserved, {
    ...common,
    lengthMs: rows * intervalMs,
    note: [NOTE, unsigned ? `It was ${unsigned}.` : null, rateNote, beginNote].filter(Boolean).join(' '),
    extra: { ...base, interval_ms: intervalMs, ...rateExtra },
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
    name: takeName(note.label, `${id.slice(0, 8)}.wav`),
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

/** The rate the header declares (given, or a recording from before arrival times were kept); else the rows spread over the time it ran. */
function intervalOf(header: StoredHeader, rows: number, lastWriteMs: number): number {
  const declared = (header.context as { intervalMs?: unknown }).intervalMs;
  if (typeof declared === 'number' && declared > 0) return declared;
  const started = header.started ? Date.parse(header.started) : NaN;
  const spanMs = lastWriteMs - started;
  return Number.isFinite(spanMs) && spanMs > 0 ? spanMs / rows : 1;
}
