/**
 * Min/max per pixel column over a window of rows: what a plot needs to show every spike of an
 * hour-long sample at any zoom, at a cost set by the plot's width rather than the sample's length.
 */
export interface Envelope {
  /** Start time of each column (ms from the start of the sample). */
  t: Float64Array<ArrayBuffer>;
  /** One array per axis, same length as t. Equal to max when `raw`. */
  min: Float32Array<ArrayBuffer>[];
  max: Float32Array<ArrayBuffer>[];
  /** Rows in the window and where it starts. */
  firstRow: number;
  rows: number;
  /** True when the window holds few enough rows to send them as they are (one column per row). */
  raw: boolean;
}

export interface Columns {
  columns: ArrayLike<number>[];
  scale: number;
  intervalMs: number;
}

export function envelope(d: Columns, from: number, to: number, width: number): Envelope {
  const n = Math.max(0, to - from);
  const cols = Math.max(1, Math.floor(width));
  if (n <= cols * 2) {
    const t = new Float64Array(n);
    for (let i = 0; i < n; i++) t[i] = (from + i) * d.intervalMs;
    const min = d.columns.map((c) => {
      const y = new Float32Array(n);
      for (let i = 0; i < n; i++) y[i] = c[from + i]! * d.scale;
      return y;
    });
    return { t, min, max: min, firstRow: from, rows: n, raw: true };
  }
  const t = new Float64Array(cols);
  for (let c = 0; c < cols; c++) t[c] = (from + Math.floor((c * n) / cols)) * d.intervalMs;
  const min: Float32Array<ArrayBuffer>[] = [];
  const max: Float32Array<ArrayBuffer>[] = [];
  for (const col of d.columns) {
    const lo = new Float32Array(cols);
    const hi = new Float32Array(cols);
    for (let c = 0; c < cols; c++) {
      const a = from + Math.floor((c * n) / cols);
      const b = from + Math.floor(((c + 1) * n) / cols);
      let mn = Infinity;
      let mx = -Infinity;
      for (let i = a; i < b; i++) {
        const v = col[i]!;
        if (v < mn) mn = v;
        if (v > mx) mx = v;
      }
      lo[c] = mn * d.scale;
      hi[c] = mx * d.scale;
    }
    min.push(lo);
    max.push(hi);
  }
  return { t, min, max, firstRow: from, rows: n, raw: false };
}
