import type { Activity } from './activity.js';
import type { NoiseFloor } from './floor.js';

/** One stretch of activity above the floor, in rows of the sample. */
export interface FoundEvent {
  from: number;
  to: number;
  /** Row of the energy centre (fractional). */
  centre: number;
  /** Loudest frame over the floor, as an amplitude ratio. */
  peakRatio: number;
}

export interface EventRules {
  /** Amplitude ratio over the floor that starts an event. */
  threshold: number;
  /** Events closer than this are one event (a word's syllables, a gesture's back-and-forth). */
  minGapMs: number;
  /** Shorter events are dropped: a click, a knock on the table, a glitch in one reading. */
  minEventMs: number;
}

/**
 * Runs of frames over `threshold` × floor (amplitude), each extended while it stays over half
 * that (quiet onsets and tails of a word belong to it), merged across gaps under minGapMs.
 */
export function findEvents(a: Activity, floor: NoiseFloor, r: EventRules): FoundEvent[] {
  const { power, frameRows } = a;
  const frameMs = frameRows * a.intervalMs;
  const high = r.threshold * r.threshold;
  const low = Math.max(1, high / 4);
  const ratio = (f: number) => power[f]! / floor.perBlock[Math.floor(f / floor.framesPerBlock)]!;
  const runs: Array<{ a: number; b: number; peak: number }> = [];
  let lastEnd = 0;
  for (let f = 0; f < power.length; f++) {
    if (ratio(f) < high) continue;
    let s = f;
    while (s > lastEnd && ratio(s - 1) >= low) s--;
    let e = f;
    let peak = 0;
    while (e < power.length && ratio(e) >= low) {
      if (ratio(e) > peak) peak = ratio(e);
      e++;
    }
    runs.push({ a: s, b: e, peak });
    lastEnd = e;
    f = e;
  }
  const gapFrames = r.minGapMs / frameMs;
  const merged: typeof runs = [];
  for (const run of runs) {
    const prev = merged[merged.length - 1];
    if (prev && run.a - prev.b < gapFrames) {
      prev.b = run.b;
      prev.peak = Math.max(prev.peak, run.peak);
    } else merged.push({ ...run });
  }
  const out: FoundEvent[] = [];
  for (const ev of merged) {
    if ((ev.b - ev.a) * frameMs < r.minEventMs) continue;
    out.push({ from: ev.a * frameRows, to: Math.min(a.rows, ev.b * frameRows), centre: energyCentre(a, floor, ev.a, ev.b), peakRatio: Math.sqrt(ev.peak) });
  }
  return out;
}

/**
 * Weighted by power over the floor, each frame's weight capped at four times the event's median
 * frame: one click next to a word must not drag the word's window towards itself.
 */
function energyCentre(a: Activity, floor: NoiseFloor, fa: number, fb: number): number {
  const w = new Float64Array(fb - fa);
  for (let f = fa; f < fb; f++) w[f - fa] = Math.max(0, a.power[f]! - floor.perBlock[Math.floor(f / floor.framesPerBlock)]!);
  const cap = 4 * Float64Array.from(w).sort()[Math.floor(w.length / 2)]!;
  let sum = 0;
  let at = 0;
  for (let i = 0; i < w.length; i++) {
    const x = cap > 0 ? Math.min(w[i]!, cap) : w[i]!;
    sum += x;
    at += x * ((fa + i) * a.frameRows + a.frameRows / 2);
  }
  return sum > 0 ? Math.min(a.rows, at / sum) : ((fa + fb) / 2) * a.frameRows;
}
