import type { SampleEnvelope } from '../../../src-main/core/contract/contract.js';

/**
 * uPlot data from an envelope: x in seconds; min/max columns become two points each (at the
 * column's start and middle), so a spike one row wide still draws as a full vertical stroke.
 */
export function envelopeToPlot(e: SampleEnvelope, intervalMs: number): { x: Float64Array; ys: Float64Array[] } {
  const n = e.t.length;
  if (e.raw) {
    const x = new Float64Array(n);
    for (let i = 0; i < n; i++) x[i] = e.t[i]! / 1000;
    return { x, ys: e.min.map((m) => Float64Array.from(m)) };
  }
  const x = new Float64Array(n * 2);
  for (let c = 0; c < n; c++) {
    const next = c + 1 < n ? e.t[c + 1]! : e.t[c]! + (e.rows / n) * intervalMs;
    x[2 * c] = e.t[c]! / 1000;
    x[2 * c + 1] = (e.t[c]! + (next - e.t[c]!) / 2) / 1000;
  }
  const ys = e.min.map((lo, a) => {
    const hi = e.max[a]!;
    const y = new Float64Array(n * 2);
    for (let c = 0; c < n; c++) {
      y[2 * c] = lo[c]!;
      y[2 * c + 1] = hi[c]!;
    }
    return y;
  });
  return { x, ys };
}

/** A view window [start, end] in ms, kept inside the sample and at least a few rows wide. */
export interface ViewWindow {
  startMs: number;
  endMs: number;
}

export function clampView(v: ViewWindow, lengthMs: number, minMs: number): ViewWindow {
  let span = Math.min(lengthMs, Math.max(minMs, v.endMs - v.startMs));
  let start = Math.max(0, Math.min(v.startMs, lengthMs - span));
  if (!Number.isFinite(start)) start = 0;
  if (!Number.isFinite(span)) span = lengthMs;
  return { startMs: start, endMs: start + span };
}

/** Zoom by `factor` (< 1 zooms in) around `atMs`, which stays where it is on screen. */
export function zoomView(v: ViewWindow, factor: number, atMs: number, lengthMs: number, minMs: number): ViewWindow {
  const span = v.endMs - v.startMs;
  const f = (atMs - v.startMs) / (span || 1);
  // Limited before placing, so the point under the cursor stays put even at the deepest zoom.
  const next = Math.min(lengthMs, Math.max(minMs, span * factor));
  return clampView({ startMs: atMs - f * next, endMs: atMs - f * next + next }, lengthMs, minMs);
}

export function panView(v: ViewWindow, fraction: number, lengthMs: number, minMs: number): ViewWindow {
  const d = (v.endMs - v.startMs) * fraction;
  return clampView({ startMs: v.startMs + d, endMs: v.endMs + d }, lengthMs, minMs);
}

/**
 * The view moved just enough (zoom kept) to show `w` — its start, when it is wider than the view —
 * or null when it is already in view, so nothing is fetched again.
 */
export function revealView(v: ViewWindow, w: ViewWindow, lengthMs: number, minMs: number): ViewWindow | null {
  if (w.startMs >= v.startMs && w.endMs <= v.endMs) return null;
  const span = v.endMs - v.startMs;
  const start = w.startMs < v.startMs || w.endMs - w.startMs > span ? w.startMs : w.endMs - span;
  const next = clampView({ startMs: start, endMs: start + span }, lengthMs, minMs);
  return next.startMs === v.startMs && next.endMs === v.endMs ? null : next;
}
