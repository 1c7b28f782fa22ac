import type { RingSeries } from './ring-series.js';

export interface PlotData {
  /** Seconds relative to the newest row (≤ 0). */
  x: Float64Array;
  /** One array per axis, same length as x. */
  ys: Float64Array[];
}

/**
 * Reduces the rows held to at most two points per pixel column (the column's minimum and
 * maximum), so drawing cost depends on the plot's width, not the sample rate, and no spike is
 * lost the way plain subsampling would lose it.
 */
export function decimateMinMax(series: RingSeries, columns: number, rateHz: number): PlotData {
  const n = series.length;
  const axes = series.axisCount;
  const cols = Math.max(1, Math.floor(columns));
  const toSeconds = (i: number) => (i - (n - 1)) / rateHz;

  if (n <= cols * 2) {
    const x = new Float64Array(n);
    const ys = Array.from({ length: axes }, () => new Float64Array(n));
    for (let i = 0; i < n; i++) {
      x[i] = toSeconds(i);
      for (let a = 0; a < axes; a++) ys[a]![i] = series.get(a, i);
    }
    return { x, ys };
  }

  const x = new Float64Array(cols * 2);
  const ys = Array.from({ length: axes }, () => new Float64Array(cols * 2));
  const cap = series.capacity;
  const start = series.start;
  for (let c = 0; c < cols; c++) {
    const from = Math.floor((c * n) / cols);
    const to = Math.max(from + 1, Math.floor(((c + 1) * n) / cols));
    x[2 * c] = toSeconds(from);
    x[2 * c + 1] = toSeconds(to - 1);
  }
  // Axis by axis over the raw ring storage: this is the per-frame hot loop (16 axes × 10 000 rows
  // at 1 kHz), so no per-value calls and no modulo inside the scan.
  for (let a = 0; a < axes; a++) {
    const data = series.raw(a);
    const y = ys[a]!;
    for (let c = 0; c < cols; c++) {
      const from = Math.floor((c * n) / cols);
      const to = Math.max(from + 1, Math.floor(((c + 1) * n) / cols));
      let min = Infinity;
      let max = -Infinity;
      let minAt = 0;
      let maxAt = 0;
      let p = (start + from) % cap;
      for (let i = from; i < to; i++) {
        const v = data[p]!;
        if (v < min) (min = v), (minAt = i);
        if (v > max) (max = v), (maxAt = i);
        if (++p === cap) p = 0;
      }
      // Keep the order in which the extremes happened so the line's shape stays honest.
      y[2 * c] = minAt <= maxAt ? min : max;
      y[2 * c + 1] = minAt <= maxAt ? max : min;
    }
  }
  return { x, ys };
}
