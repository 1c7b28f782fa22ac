import type { BadLineLog } from './bad-lines.js';
import type { Layout, RowSink } from './row-sink.js';

/**
 * Good rows kept back while the width is being settled: they reach the sink once enough lines
 * agree, or are rejected as 'width' if the stream settles on another shape. Preallocated, since
 * a reopen starts this over.
 */
export class HeldRows {
  readonly #values: Float64Array;
  readonly #row: Float64Array;
  readonly #stride: number;
  count = 0;
  width = 0;
  layout: Layout | null = null;
  names: string[] | null = null;

  constructor(capacity: number, maxWidth: number) {
    this.#values = new Float64Array(capacity * maxWidth);
    this.#row = new Float64Array(maxWidth);
    this.#stride = maxWidth;
  }

  /** Whether a row of this shape may join the ones held. */
  fits(layout: Layout, width: number, names: string[] | null): boolean {
    return this.count === 0 || (this.layout === layout && this.width === width && sameNames(this.names, names));
  }

  add(values: Float64Array, width: number, layout: Layout, names: string[] | null): void {
    this.#values.set(values.subarray(0, width), this.count * this.#stride);
    this.count++;
    this.width = width;
    this.layout = layout;
    this.names = names;
  }

  /** Hands every held row to the sink; returns how many. */
  release(sink: RowSink): number {
    const n = this.count;
    for (let r = 0; r < n; r++) {
      const at = r * this.#stride;
      this.#row.set(this.#values.subarray(at, at + this.width));
      sink.row(this.#row, this.width);
    }
    this.clear();
    return n;
  }

  /** Rejects every held row as 'width'; their bytes are gone, so the log gets their values. */
  reject(bad: BadLineLog, sink: RowSink): void {
    for (let r = 0; r < this.count; r++) {
      const at = r * this.#stride;
      bad.addText('width', Array.from(this.#values.subarray(at, at + this.width)).join(','));
      sink.rejected('width');
    }
    this.clear();
  }

  clear(): void {
    this.count = 0;
    this.layout = null;
    this.names = null;
  }
}

function sameNames(a: string[] | null, b: string[] | null): boolean {
  if (a === null || b === null) return a === b;
  return a.length === b.length && a.every((name, i) => name === b[i]);
}
