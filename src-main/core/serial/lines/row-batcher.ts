import type { BadLineReason } from './bad-lines.js';
import type { RowSink } from './numeric-line-parser.js';

/** Rows as the rest of the app takes them: Float64 (a recording keeps the numbers the board printed), row-major, several at a time. */
export interface RowBatch {
  /** rowCount × width values. A view of a reused buffer: valid only while the listener runs. */
  readonly rows: Float64Array;
  readonly rowCount: number;
  readonly width: number;
  /** Lines rejected since the previous batch, so a recording can say how many it is missing. */
  readonly rejectedLines: number;
  /** Arrival time (ms, the reader's clock) of the chunk that completed these rows. */
  readonly arrivalMs: number;
  /**
   * Lines counted toward the rate estimate since the reader was made, up to the last line of
   * this batch (rows, and rejected readings that still came at their time). With arrivalMs, what
   * a recording keeps to measure the rate again from its own rows (capture/recorded-rate.ts).
   */
  readonly lines: number;
}

/** 128 KiB of Float64 per batch: a few thousand rows of a typical IMU, small enough to stay in cache. */
export const DEFAULT_BATCH_VALUES = 16_384;

/**
 * The parser's `RowSink`: packs rows into one preallocated Float64Array and hands it on when full
 * or when `flush()` is called (the reader does so after each chunk), so listeners see one call per
 * chunk of rows rather than one per row or value.
 */
export class RowBatcher implements RowSink {
  readonly #buf: Float64Array;
  readonly #emit: (batch: RowBatch) => void;
  #width = 0;
  #rows = 0;
  #used = 0;
  #rejected = 0;
  /** Set by the reader before each chunk; stamped on the batches that chunk completes. */
  arrivalMs = 0;
  /** Kept by the reader as lines are counted; stamped on each batch (see RowBatch.lines). */
  lines = 0;

  constructor(emit: (batch: RowBatch) => void, capacityValues = DEFAULT_BATCH_VALUES) {
    this.#buf = new Float64Array(capacityValues);
    this.#emit = emit;
  }

  row(values: Float64Array, width: number): void {
    if (width !== this.#width || this.#used + width > this.#buf.length) {
      if (this.#rows > 0) this.flush();
      this.#width = width;
    }
    const buf = this.#buf;
    let at = this.#used;
    for (let i = 0; i < width; i++) buf[at++] = values[i]!;
    this.#used = at;
    this.#rows++;
  }

  rejected(_reason: BadLineReason): void {
    this.#rejected++;
  }

  /** Hands on what is pending, if anything; a batch of only rejections is still news for a recorder. */
  flush(): void {
    if (this.#rows === 0 && this.#rejected === 0) return;
    const batch: RowBatch = {
      rows: this.#buf.subarray(0, this.#used),
      rowCount: this.#rows,
      width: this.#width,
      rejectedLines: this.#rejected,
      arrivalMs: this.arrivalMs,
      lines: this.lines,
    };
    this.#rows = 0;
    this.#used = 0;
    this.#rejected = 0;
    this.#emit(batch);
  }

}
