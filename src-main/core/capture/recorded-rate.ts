import { open } from 'node:fs/promises';
import { RateEstimator, type RateSnapshot } from '../serial/lines/rate-estimator.js';

/** The interval written into a sample that waits for its rate: rows numbered 1 ms apart, never uploaded like that. */
export const PLACEHOLDER_INTERVAL_MS = 1;
export const RATE_MISSING_NOTE =
  'rate unknown: the sampling frequency could not be measured from this capture and was not given. Every row is kept; give the rate (sample view, or "capture-desk samples set-rate ID --frequency HZ") to finish the sample, then it can be uploaded.';

/**
 * A recording from a source that measures its rate (a numeric-line board with no rate given)
 * keeps, beside `<id>.rows`, `<id>.times`: one record per batch of rows, so that a recording
 * that is never finished (kill -9, power cut) can have its rate measured again from its own
 * rows, as the reader would have at Stop. Little-endian: float64 arrival time (ms, monotonic
 * clock), uint32 lines counted toward the rate since the previous record, uint32 rows in the
 * batch. A few bytes per batch, never per row.
 */
export const TIMING_RECORD_BYTES = 16;
const RECORDS_PER_WRITE = 256;
/** Handed to the file system at least this often (arrival time), so a kill loses little. */
const WRITE_EVERY_MS = 100;

/** Packs timing records into a fixed buffer and says when it is due to be written. */
export class TimingLog {
  #buf = Buffer.allocUnsafe(RECORDS_PER_WRITE * TIMING_RECORD_BYTES);
  #n = 0;
  #lastLines = -1;
  #writtenAt = -Infinity;

  /**
   * `lines` is the source's running count (RowTiming.lines). Returns the bytes to write when
   * they are due (the first record at once, then every WRITE_EVERY_MS or full buffer), else null.
   */
  add(arrivalMs: number, lines: number, rows: number): Buffer | null {
    const delta = lines - this.#lastLines;
    // The first batch (and a source that started counting again) only sets where counting starts.
    const counted = this.#lastLines < 0 || !(delta >= 0) ? rows : delta;
    this.#lastLines = lines;
    const at = this.#n++ * TIMING_RECORD_BYTES;
    this.#buf.writeDoubleLE(arrivalMs, at);
    this.#buf.writeUInt32LE(Math.min(counted, 0xffffffff), at + 8);
    this.#buf.writeUInt32LE(Math.min(rows, 0xffffffff), at + 12);
    return this.#n === RECORDS_PER_WRITE || arrivalMs - this.#writtenAt >= WRITE_EVERY_MS ? this.take(arrivalMs) : null;
  }

  /** Whatever is pending (at the end of a recording), or null. */
  take(nowMs = this.#writtenAt): Buffer | null {
    if (this.#n === 0) return null;
    const out = this.#buf.subarray(0, this.#n * TIMING_RECORD_BYTES);
    // The written buffer belongs to the write stream now; the next records go to a new one.
    this.#buf = Buffer.allocUnsafe(RECORDS_PER_WRITE * TIMING_RECORD_BYTES);
    this.#n = 0;
    this.#writtenAt = nowMs;
    return out;
  }
}

export interface RecordedRate {
  /** The measured rate, or null when these rows cannot tell it (too few lines, or mostly rejected ones). */
  frequencyHz: number | null;
  snapshot: RateSnapshot;
  /** From the first to the last arrival used, ms. */
  spanMs: number;
  /** Rows the records cover (never more than the rows kept). */
  rows: number;
}

/**
 * The last arrivals replayed into a fresh estimator: twice its window of points, so it has
 * settled (pauses, lost lines) by the time it reaches the points its final fit is made of.
 * The reader's estimator keeps at most 4096 points, so this is the same estimate it had at
 * Stop; memory stays flat however long the recording ran.
 */
const REPLAY_RECORDS = 2 * 4096;

/**
 * Measures a recording's rate again from its `<id>.times`, for the first `rows` rows only (the
 * rows that reached the disk: the times of rows lost with the process are not used). The same
 * estimator, fed the same arrivals, as the live reader: a recovered take gets the rate the
 * finished take would have got from the same rows.
 */
export async function measureRecordedRate(timesFile: string, rows: number): Promise<RecordedRate | null> {
  let fh;
  try {
    fh = await open(timesFile, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const t = new Float64Array(REPLAY_RECORDS);
  const n = new Uint32Array(REPLAY_RECORDS);
  let kept = 0; // records in the ring
  let next = 0; // where the next one goes
  let covered = 0;
  let lines = 0;
  let firstMs = NaN;
  let lastMs = NaN;
  try {
    const chunk = Buffer.allocUnsafe(4096 * TIMING_RECORD_BYTES);
    let pos = 0;
    read: for (;;) {
      const { bytesRead } = await fh.read(chunk, 0, chunk.length, pos);
      const whole = bytesRead - (bytesRead % TIMING_RECORD_BYTES);
      for (let at = 0; at < whole; at += TIMING_RECORD_BYTES) {
        const batchRows = chunk.readUInt32LE(at + 12);
        if (covered + batchRows > rows) break read;
        const ms = chunk.readDoubleLE(at);
        if (!Number.isFinite(ms)) break read;
        covered += batchRows;
        const counted = chunk.readUInt32LE(at + 8);
        lines += counted;
        if (Number.isNaN(firstMs)) firstMs = ms;
        lastMs = ms;
        t[next] = ms;
        n[next] = counted;
        next = (next + 1) % REPLAY_RECORDS;
        if (kept < REPLAY_RECORDS) kept++;
      }
      if (bytesRead < chunk.length) break;
      pos += whole;
    }
  } finally {
    await fh.close();
  }
  if (kept === 0) return null;
  const estimator = new RateEstimator();
  for (let i = 0, at = (next - kept + REPLAY_RECORDS) % REPLAY_RECORDS; i < kept; i++, at = (at + 1) % REPLAY_RECORDS) estimator.add(t[at]!, n[at]!);
  const snapshot = estimator.snapshot();
  // As the reader: a rate made mostly of rejected lines describes noise (a wrong baud rate), not the board.
  const frequencyHz = covered > lines - covered ? snapshot.frequencyHz : null;
  return { frequencyHz, snapshot, spanMs: lastMs - firstMs, rows: covered };
}

/**
 * Said in the note of a sample whose rate was measured from a stretch too short to pin it down
 * (the estimator's ~95 % interval is wider than ±0.1 %); null when the rate is well measured.
 */
export function shortStretchNote(r: RecordedRate): string | null {
  const s = r.snapshot;
  if (r.frequencyHz === null || s.confidence === 'good') return null;
  const within = s.relativeError === null ? '' : `, so it may be off by about ${formatPercent(s.relativeError)}`;
  return `Its rate (${r.frequencyHz.toFixed(3)} Hz) was measured from a short stretch, the ${r.rows} rows that arrived in ${(r.spanMs / 1000).toFixed(1)} s${within}.`;
}

function formatPercent(rel: number): string {
  const p = rel * 100;
  return `${p < 0.1 ? p.toFixed(2) : p.toFixed(1)} %`;
}
