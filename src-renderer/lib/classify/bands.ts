import type { ClassifiedWindow } from '../../../src-main/core/contract/contract.js';

/** The part of the sample a plot shows, in ms. */
export interface ViewSpan {
  startMs: number;
  endMs: number;
}

/** One window's band over a plot: where it sits in CSS pixels of the drawing area, and its lane. */
export interface Band {
  index: number;
  /** From the drawing area's left edge; may be negative or past its width when partly out of view. */
  left: number;
  width: number;
  /** Windows overlap (size > increase): each lane holds windows that do not, stacked from the top. */
  lane: number;
  /** Some of it is in the view. */
  visible: boolean;
}

/** More lanes than this and the bands would cover the plot; later windows then share lanes. */
export const MAX_LANES = 4;

/** How many lanes keep overlapping windows apart: ceil(size / increase), at most MAX_LANES. */
export function laneCount(windowSizeMs: number, windowIncreaseMs: number): number {
  if (!(windowIncreaseMs > 0) || !(windowSizeMs > 0)) return 1;
  return Math.max(1, Math.min(MAX_LANES, Math.ceil(windowSizeMs / windowIncreaseMs - 1e-9)));
}

/** The x of `ms` in a drawing area `widthPx` wide showing `view` (the plot's own linear scale). */
export function xOf(ms: number, view: ViewSpan, widthPx: number): number {
  const span = view.endMs - view.startMs;
  return span > 0 ? ((ms - view.startMs) / span) * widthPx : 0;
}

/**
 * One band per window over its time span, start to end as the classification gives them
 * (i × windowIncreaseMs to + windowSizeMs, clipped to the sample), on the plot's scale.
 */
export function bandLayout(windows: readonly ClassifiedWindow[], view: ViewSpan, widthPx: number, lanes: number): Band[] {
  return windows.map((w) => {
    const left = xOf(w.startMs, view, widthPx);
    const right = xOf(w.endMs, view, widthPx);
    return {
      index: w.index,
      left,
      width: Math.max(1, right - left),
      lane: lanes > 0 ? w.index % lanes : 0,
      visible: w.endMs > view.startMs && w.startMs < view.endMs,
    };
  });
}

/**
 * The anomaly line: one point per window at its middle, 0 at the bottom and `top` at the top
 * (the highest score, at least 1). Windows without a score leave a gap (a new run starts).
 */
export function anomalyRuns(windows: readonly ClassifiedWindow[], view: ViewSpan, widthPx: number, heightPx: number): { top: number; runs: Array<Array<[number, number]>> } {
  const scores = windows.flatMap((w) => (w.anomaly === null ? [] : [w.anomaly]));
  const top = Math.max(1, ...scores);
  const runs: Array<Array<[number, number]>> = [];
  let run: Array<[number, number]> = [];
  for (const w of windows) {
    if (w.anomaly === null) {
      if (run.length) runs.push(run);
      run = [];
      continue;
    }
    const x = xOf((w.startMs + w.endMs) / 2, view, widthPx);
    const y = heightPx - (Math.max(0, w.anomaly) / top) * heightPx;
    run.push([round1(x), round1(y)]);
  }
  if (run.length) runs.push(run);
  return { top, runs };
}

const round1 = (x: number): number => Math.round(x * 10) / 10;

/** The window after `from` in the direction of a key (ArrowLeft/Right, Home, End), or null for other keys. */
export function nextWindow(key: string, from: number, count: number): number | null {
  if (count === 0) return null;
  if (key === 'ArrowLeft' || key === 'ArrowUp') return Math.max(0, from - 1);
  if (key === 'ArrowRight' || key === 'ArrowDown') return Math.min(count - 1, from + 1);
  if (key === 'Home') return 0;
  if (key === 'End') return count - 1;
  return null;
}
