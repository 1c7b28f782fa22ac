import type { LiveWindow } from './live-verdicts.js';

/** One window's piece of the strip, in CSS px of the strip. */
export interface StripPiece {
  left: number;
  width: number;
  window: LiveWindow;
}

/**
 * Each window is drawn around its middle (the stretch of signal it stands for best once windows
 * overlap): up to halfway to its neighbours' middles, or half a stride where it has none near (a
 * skipped window, the ends), so neighbours share an edge whatever the real spacing (a stride of
 * 31.25 rows is 31 or 32). x = `xOf(ms)` rounded to whole pixels; pieces outside 0..width are left out.
 */
export function stripPieces(windows: readonly LiveWindow[], strideMs: number, width: number, xOf: (ms: number) => number | null): StripPiece[] {
  const out: StripPiece[] = [];
  const half = strideMs / 2;
  const mid = (w: LiveWindow) => (w.startMs + w.endMs) / 2;
  const near = (a: number, b: number) => Math.abs(b - a) <= 1.5 * strideMs;
  for (let i = 0; i < windows.length; i++) {
    const m = mid(windows[i]!);
    const before = i > 0 ? mid(windows[i - 1]!) : null;
    const after = i + 1 < windows.length ? mid(windows[i + 1]!) : null;
    const a = xOf(before !== null && near(before, m) ? (before + m) / 2 : m - half);
    const b = xOf(after !== null && near(m, after) ? (m + after) / 2 : m + half);
    if (a === null || b === null || b < 0 || a > width) continue;
    const left = Math.max(0, Math.round(a));
    const right = Math.min(width, Math.round(b));
    if (right - left <= 0) continue;
    out.push({ left, width: right - left, window: windows[i]! });
  }
  return out;
}

/** "wave 0.95" / "uncertain (idle 0.55)", for the strip's tooltip and the readout. */
export function windowWords(w: LiveWindow): string {
  const conf = w.confidence === null ? '' : ` ${w.confidence.toFixed(2)}`;
  if (w.shown === null) return `uncertain (${w.top ?? 'no label'}${conf})`;
  return w.shown === w.top ? `${w.shown}${conf}` : `${w.shown} (smoothed; this window: ${w.top ?? 'no label'}${conf})`;
}

/** The strip in words for screen readers: how many windows showed each label. */
export function stripSummary(windows: readonly LiveWindow[], seconds: number): string {
  if (!windows.length) return 'No windows classified yet.';
  const counts = new Map<string, number>();
  for (const w of windows) counts.set(w.shown ?? 'uncertain', (counts.get(w.shown ?? 'uncertain') ?? 0) + 1);
  return `Last ${seconds} s of the model's labels: ${[...counts].map(([l, n]) => `${l} ${n} ${n === 1 ? 'window' : 'windows'}`).join(', ')}.`;
}

/** Neighbouring pieces that show the same label, as one stretch; label null: uncertain. */
export interface StripRun {
  left: number;
  width: number;
  label: string | null;
}

export function stripRuns(pieces: readonly StripPiece[]): StripRun[] {
  const runs: StripRun[] = [];
  for (const p of pieces) {
    const last = runs.at(-1);
    if (last && last.label === p.window.shown && p.left <= last.left + last.width + 1) last.width = p.left + p.width - last.left;
    else runs.push({ left: p.left, width: p.width, label: p.window.shown });
  }
  return runs;
}

/**
 * What a stretch of the strip says in text, so its colour is never all it has: the label where it
 * fits, else the label's number in the legend ("?" for uncertain), else nothing (a sliver).
 * `textWidth` measures in CSS px; `pad` is the room kept around the text.
 */
export function runText(run: StripRun, labels: readonly string[], textWidth: (text: string) => number, pad = 6): string {
  const key = run.label === null ? '?' : labels.includes(run.label) ? String(labels.indexOf(run.label) + 1) : null;
  const choices = [run.label ?? 'uncertain', ...(key === null ? [] : [key])];
  return choices.find((t) => textWidth(t) + pad <= run.width) ?? '';
}
