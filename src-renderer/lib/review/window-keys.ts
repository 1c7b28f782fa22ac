/**
 * Proposed split windows driven from the keyboard: what a key does to the focused window, where
 * focus goes when one is removed, and the one clamp that keeps a moved window inside the sample
 * (used by mouse dragging too, so both ways stop at the same place).
 *
 * The small step is 10 ms because the split panel lists windows to 10 ms: every press changes the
 * shown start and end by exactly one digit, whatever the zoom (one plot pixel would be 2 ms zoomed
 * in and 20 ms on a long sample, and the list would not always show the step).
 */
export const SMALL_STEP_MS = 10;
export const LARGE_STEP_MS = 100;

export type WindowKeyAction = { kind: 'move'; byMs: number } | { kind: 'remove' } | { kind: 'play' } | null;

export interface WindowKey {
  key: string;
  shiftKey: boolean;
  ctrlKey: boolean;
  altKey: boolean;
  metaKey: boolean;
  repeat: boolean;
}

export function windowKeyAction(e: WindowKey): WindowKeyAction {
  if (e.ctrlKey || e.altKey || e.metaKey) return null;
  // Holding an arrow keeps moving; a held Delete must not eat the windows after it.
  if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') return { kind: 'move', byMs: (e.key === 'ArrowLeft' ? -1 : 1) * (e.shiftKey ? LARGE_STEP_MS : SMALL_STEP_MS) };
  if (e.repeat) return null;
  if (e.key === 'Delete' || e.key === 'Backspace') return { kind: 'remove' };
  if (e.key === ' ' || e.key === 'Enter') return { kind: 'play' };
  return null;
}

/** Where a window of `lengthMs` may start: not before the sample, not running past its end. */
export function clampStart(startMs: number, lengthMs: number, sampleMs: number): number {
  return Math.max(0, Math.min(sampleMs - lengthMs, startMs));
}

/** Indices of the windows in order along the time axis (the order Tab visits them). */
export function timeOrder(windows: ReadonlyArray<{ startMs: number }>): number[] {
  return windows.map((_, i) => i).sort((a, b) => windows[a]!.startMs - windows[b]!.startMs || a - b);
}

/**
 * After removing window `removed`, the index (in the shortened list) to focus: the next window
 * along the time axis, else the previous one, else -1 when none are left.
 * `order` is `timeOrder` of the list before the removal.
 */
export function focusAfterRemove(order: readonly number[], removed: number): number {
  const at = order.indexOf(removed);
  const neighbour = order[at + 1] ?? order[at - 1];
  if (at < 0 || neighbour === undefined) return -1;
  return neighbour > removed ? neighbour - 1 : neighbour;
}

const sec = (ms: number) => (ms / 1000).toFixed(2);

/** The accessible name: the number shown over the plot and in the list, then the times. */
export function windowName(index: number, w: { startMs: number; endMs: number }): string {
  return `Window ${index + 1}: ${sec(w.startMs)} s – ${sec(w.endMs)} s`;
}
