/**
 * Cuts a live stream of interleaved rows into the overlapping windows a model classifies, bringing
 * the stream to the model's sample rate on the way when the two differ.
 *
 * Why it looks like this:
 * - The export's run_classifier reads exactly `windowRows × axes` floats and does not check the
 *   length it is given, so every window handed out is complete and of exactly that size.
 * - Streams run for hours: memory is one window's worth of rows, reused (rows before the next
 *   window's start are dropped by shifting the buffer down once per window), never a growing list.
 * - 16 kHz audio and 100k+ rows/s serial go through here, so there is no allocation per row:
 *   same-rate rows are copied in blocks with `set`, resampled rows are written in place, and the
 *   only allocation is the window handed out (a new array the caller may transfer to a worker).
 * - Resampling is linear interpolation onto the model's time grid, as the brief asks, which is
 *   exact for slow sensor signals. It does not filter: for audio going DOWN in rate, run the
 *   band-limited `StreamResampler` (core/audio/resampler.ts) first and feed rows at the model's rate.
 */

export interface WindowerOptions {
  /** Axes per row of the stream (= the model's axes). */
  axes: number;
  /** The model's frame_sample_count: rows per window, at the model's rate. */
  windowRows: number;
  /**
   * A window starts every strideRows model-rate rows (>= 1). It may be fractional (500 ms at
   * 62.5 Hz is 31.25 rows): window k then ends at row windowRows + round(k × strideRows), so the
   * stride averages exactly what was asked instead of drifting by the rounding on every window.
   */
  strideRows: number;
  /** The stream's rate, Hz. */
  sourceHz: number;
  /** The model's rate, Hz. Within 1% of sourceHz the rows are taken as they are (no resampling). */
  modelHz: number;
}

export interface CutWindow {
  /** windowRows × axes floats, interleaved by row; a new array the caller owns. */
  values: Float32Array;
  /** 0, 1, 2, … windows emitted so far. */
  index: number;
  /** Exclusive end, in source rows counted from the first row pushed, of the source row that completed this window. */
  endRow: number;
  /** The window's end, ms from the first row pushed (LiveModel adds the stream's rows before that). */
  endMs: number;
}

/** Rates closer than this (relative) count as equal: boards report e.g. 99.6 Hz for a 100 Hz model. */
const SAME_RATE_TOLERANCE = 0.01;

export class Windower {
  readonly resampling: boolean;
  readonly #axes: number;
  readonly #windowRows: number;
  readonly #stride: number;
  readonly #sourceHz: number;
  readonly #modelHz: number;
  /** Model-rate rows from #nextEnd - windowRows (the next window's first row) up to #total. */
  readonly #buf: Float32Array;
  /** Model-rate rows produced so far (absolute count, including rows skipped between windows). */
  #total = 0;
  /** Absolute model-rate row index just past the next window. */
  #nextEnd: number;
  #index = 0;
  /** Source rows pushed so far. */
  #sourceRows = 0;
  /** Resampling only: the previous source row (to interpolate towards the current one). */
  readonly #last: Float64Array;
  /** Resampling only: source-time position (in source rows) of model row #total. */
  #nextPos = 0;

  constructor(o: WindowerOptions) {
    for (const k of ['axes', 'windowRows'] as const) {
      if (!Number.isInteger(o[k]) || o[k] < 1) throw new RangeError(`Windower: ${k} must be a whole number >= 1; got ${o[k]}`);
    }
    if (!Number.isFinite(o.strideRows) || o.strideRows < 1) throw new RangeError(`Windower: strideRows must be a number >= 1; got ${o.strideRows}`);
    for (const k of ['sourceHz', 'modelHz'] as const) {
      if (!Number.isFinite(o[k]) || o[k] <= 0) throw new RangeError(`Windower: ${k} must be a positive rate; got ${o[k]}`);
    }
    this.#axes = o.axes;
    this.#windowRows = o.windowRows;
    this.#stride = o.strideRows;
    this.#sourceHz = o.sourceHz;
    this.#modelHz = o.modelHz;
    // The 1e-9 keeps exactly-1% pairs like 101/100 (1.0100000000000000089 in floating point) unresampled.
    this.resampling = Math.abs(o.sourceHz / o.modelHz - 1) > SAME_RATE_TOLERANCE + 1e-9;
    this.#buf = new Float32Array(o.windowRows * o.axes);
    this.#last = new Float64Array(o.axes);
    this.#nextEnd = o.windowRows;
  }

  /** Model-rate rows held for the next window: at most windowRows - 1 between calls. */
  get bufferedRows(): number {
    return Math.max(0, this.#total - (this.#nextEnd - this.#windowRows));
  }

  reset(): void {
    this.#total = 0;
    this.#nextEnd = this.#windowRows;
    this.#index = 0;
    this.#sourceRows = 0;
    this.#nextPos = 0;
  }

  /** `count` rows of `axes` interleaved values. Returns every window these rows completed, in order. */
  push(values: ArrayLike<number>, count: number): CutWindow[] {
    if (!Number.isInteger(count) || count < 0) throw new RangeError(`Windower.push: count must be a whole number >= 0; got ${count}`);
    if (values.length < count * this.#axes) {
      throw new RangeError(`Windower.push: ${count} rows of ${this.#axes} need ${count * this.#axes} values; got ${values.length}`);
    }
    const out: CutWindow[] = [];
    if (this.resampling) this.#pushResampled(values, count, out);
    else this.#pushSameRate(values, count, out);
    return out;
  }

  #pushSameRate(values: ArrayLike<number>, count: number, out: CutWindow[]): void {
    const axes = this.#axes;
    // Typed arrays are copied in blocks (set converts Float64 to Float32); plain arrays value by value.
    const typed = ArrayBuffer.isView(values) && !(values instanceof DataView) ? (values as unknown as Float64Array) : null;
    let row = 0;
    while (row < count) {
      const start = this.#nextEnd - this.#windowRows;
      if (this.#total < start) {
        // Stride longer than the window: rows between windows are never needed.
        const skip = Math.min(start - this.#total, count - row);
        this.#total += skip;
        row += skip;
        continue;
      }
      const n = Math.min(this.#nextEnd - this.#total, count - row);
      const dst = (this.#total - start) * axes;
      if (typed) {
        this.#buf.set(typed.subarray(row * axes, (row + n) * axes), dst);
      } else {
        for (let i = 0, m = n * axes, s = row * axes; i < m; i++) this.#buf[dst + i] = values[s + i]!;
      }
      this.#total += n;
      row += n;
      if (this.#total === this.#nextEnd) {
        const endRow = this.#sourceRows + row;
        out.push(this.#emit(endRow, (endRow / this.#sourceHz) * 1000));
      }
    }
    this.#sourceRows += count;
  }

  #pushResampled(values: ArrayLike<number>, count: number, out: CutWindow[]): void {
    const axes = this.#axes;
    const buf = this.#buf;
    const last = this.#last;
    for (let r = 0; r < count; r++) {
      const j = this.#sourceRows + r; // this row's source index: it lies at time j / sourceHz
      const s = r * axes;
      // Every model row whose time falls in (j-1, j] can be made now from rows j-1 and j.
      while (this.#nextPos <= j) {
        const start = this.#nextEnd - this.#windowRows;
        if (this.#total >= start) {
          const dst = (this.#total - start) * axes;
          const t = this.#nextPos - (j - 1); // in (0, 1]; exactly 1 lands on row j itself
          if (t >= 1) {
            for (let c = 0; c < axes; c++) buf[dst + c] = values[s + c]!;
          } else {
            for (let c = 0; c < axes; c++) buf[dst + c] = last[c]! + t * (values[s + c]! - last[c]!);
          }
        }
        this.#total++;
        // Recomputed from the row number (not accumulated) so the grid never drifts on long streams.
        this.#nextPos = (this.#total * this.#sourceHz) / this.#modelHz;
        if (this.#total === this.#nextEnd) out.push(this.#emit(j + 1, (this.#total / this.#modelHz) * 1000));
      }
      for (let c = 0; c < axes; c++) last[c] = values[s + c]!;
    }
    this.#sourceRows += count;
  }

  /** Hands out the full buffer as a new window, then keeps only the rows the next window shares. */
  #emit(endRow: number, endMs: number): CutWindow {
    const w: CutWindow = { values: this.#buf.slice(), index: this.#index++, endRow, endMs };
    // From the window's number, not accumulated: a fractional stride never drifts.
    const step = this.#windowRows + Math.round(this.#index * this.#stride) - this.#nextEnd;
    this.#nextEnd += step;
    if (step < this.#windowRows) this.#buf.copyWithin(0, step * this.#axes);
    return w;
  }
}
