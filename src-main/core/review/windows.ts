import type { StructuredLabel } from '../contract/contract.js';
import { CoreError } from '../errors.js';

/** Rows [from, to) of a sample that become a new sample. */
export interface RowWindow {
  from: number;
  to: number;
  /** For windows around a marked event: that event's label. */
  label?: string;
}

/** More new samples than this from one split is almost certainly a typo in the window length. */
export const MAX_WINDOWS = 20_000;

export function msToRow(ms: number, intervalMs: number, rows: number): number {
  return Math.min(rows, Math.max(0, Math.round(ms / intervalMs)));
}

export function cropWindow(rows: number, intervalMs: number, startMs: number, endMs: number): RowWindow {
  const from = msToRow(Math.min(startMs, endMs), intervalMs, rows);
  const to = msToRow(Math.max(startMs, endMs), intervalMs, rows);
  if (to - from < 1) throw new CoreError('InvalidArguments', 'The selection holds no rows: select a longer range to crop.');
  if (from === 0 && to === rows) throw new CoreError('InvalidArguments', 'The selection covers the whole sample: select a part of it to crop.');
  return { from, to };
}

/** Windows of `windowMs` every `strideMs` (default: back to back); a last partial window is dropped. */
export function fixedWindows(rows: number, intervalMs: number, windowMs: number, strideMs = windowMs): RowWindow[] {
  const len = Math.round(windowMs / intervalMs);
  const step = Math.round(strideMs / intervalMs);
  if (len < 1 || step < 1) throw new CoreError('InvalidArguments', `Windows of ${windowMs} ms every ${strideMs} ms are shorter than one row (${intervalMs} ms).`);
  if (len > rows) throw new CoreError('InvalidArguments', `The sample is ${(rows * intervalMs).toFixed(0)} ms long, shorter than one window of ${windowMs} ms.`);
  const count = Math.floor((rows - len) / step) + 1;
  if (count > MAX_WINDOWS) throw new CoreError('InvalidArguments', `That makes ${count} samples; at most ${MAX_WINDOWS} per split. Use longer windows or a longer stride.`);
  return Array.from({ length: count }, (_, i) => ({ from: i * step, to: i * step + len }));
}

/** One window per marked event, widened by `paddingMs` on both sides and kept inside the sample. */
export function eventWindows(rows: number, intervalMs: number, labels: StructuredLabel[] | null, paddingMs: number): RowWindow[] {
  if (!labels?.length) throw new CoreError('InvalidArguments', 'This sample has no marked events to split around; use fixed windows instead.');
  const pad = Math.max(0, Math.round(paddingMs / intervalMs));
  const out: RowWindow[] = [];
  for (const l of labels) {
    const from = Math.max(0, l.startIndex - pad);
    const to = Math.min(rows, l.endIndex + 1 + pad);
    if (to > from) out.push({ from, to, label: l.label });
  }
  if (!out.length) throw new CoreError('InvalidArguments', 'The marked events lie outside the sample; nothing to split.');
  return out;
}

/** Windows the caller chose (detected, then edited), in ms; each must lie inside the sample. */
export function givenWindows(rows: number, intervalMs: number, windows: Array<{ startMs: number; endMs: number }>): RowWindow[] {
  const lengthMs = rows * intervalMs;
  return windows.map((w, i) => {
    // Half a row of slack: the caller's ms came from rows and may be rounded.
    if (w.startMs < 0 || w.endMs > lengthMs + intervalMs / 2) throw new CoreError('InvalidArguments', `Window ${i + 1} (${Math.round(w.startMs)}–${Math.round(w.endMs)} ms) runs past the sample's end at ${Math.round(lengthMs)} ms; move it inside.`);
    const from = msToRow(w.startMs, intervalMs, rows);
    const to = msToRow(w.endMs, intervalMs, rows);
    if (to - from < 1) throw new CoreError('InvalidArguments', `Window ${i + 1} holds no rows; make it longer.`);
    return { from, to };
  });
}

/** Structured labels of the window, shifted to start at its first row and clipped to its end. */
export function clipLabels(labels: StructuredLabel[] | null, w: RowWindow): StructuredLabel[] | null {
  if (!labels) return null;
  const out: StructuredLabel[] = [];
  for (const l of labels) {
    const a = Math.max(l.startIndex, w.from);
    const b = Math.min(l.endIndex, w.to - 1);
    if (a <= b) out.push({ startIndex: a - w.from, endIndex: b - w.from, label: l.label });
  }
  return out.length ? out : null;
}
