import { describe, expect, it } from 'vitest';
import {
  type CatchRules,
  type CaughtSpan,
  isBackgroundLabel,
  isMiss,
  SpanCatcher,
  type Verdict,
} from '../../src-main/core/model/catch-spans.js';

const rules: CatchRules = { expected: 'wave', background: false, threshold: 0.6, marginMs: 500 };

/** Window i of a 1 s window every 250 ms, with the model saying `label` at `confidence`. */
const v = (i: number, label: string | null, confidence: number | null): Verdict => ({
  index: i,
  startMs: i * 250,
  endMs: i * 250 + 1000,
  label,
  confidence,
});

/** Feeds "w" (hit), "i" (idle, 0.9), "u" (unsure: wave 0.4) per window and collects every span. */
function run(c: SpanCatcher, pattern: string, from = 0): CaughtSpan[] {
  const out: CaughtSpan[] = [];
  [...pattern].forEach((ch, k) => {
    const verdict = ch === 'i' ? v(from + k, 'idle', 0.9) : ch === 'u' ? v(from + k, 'wave', 0.4) : v(from + k, 'wave', 0.95);
    out.push(...c.push(verdict));
  });
  return out;
}

describe('isMiss', () => {
  it('tells misses by reason', () => {
    expect(isMiss(v(0, 'wave', 0.9), rules)).toBeNull();
    expect(isMiss(v(0, 'wave', 0.6), rules)).toBeNull(); // at the threshold counts as sure
    expect(isMiss(v(0, 'wave', 0.59), rules)).toBe('uncertain');
    expect(isMiss(v(0, 'idle', 0.9), rules)).toBe('other-label');
    expect(isMiss(v(0, 'idle', 0.5), rules)).toBe('uncertain');
    expect(isMiss(v(0, null, null), rules)).toBe('uncertain');
    expect(isMiss(v(0, 'idle', null), rules)).toBe('uncertain');
  });

  it('lets the model be unsure about background, but not sure of another label', () => {
    const bg = { ...rules, expected: 'noise', background: true };
    expect(isMiss(v(0, 'noise', 0.3), bg)).toBeNull();
    expect(isMiss(v(0, 'wave', 0.5), bg)).toBeNull();
    expect(isMiss(v(0, null, null), bg)).toBeNull();
    expect(isMiss(v(0, 'wave', 0.7), bg)).toBe('other-label');
    expect(isBackgroundLabel('Noise')).toBe(true);
    expect(isBackgroundLabel('unknown')).toBe(true);
    expect(isBackgroundLabel('wave')).toBe(false);
  });
});

describe('SpanCatcher', () => {
  it('widens a lone miss by the margin and closes it once a verdict starts past its end plus the margin', () => {
    const c = new SpanCatcher(rules, { perMinuteCap: 10 });
    expect(c.push(v(0, 'wave', 0.9))).toEqual([]);
    expect(c.push(v(8, 'idle', 0.61))).toEqual([]); // 2000..3000 → span 1500..3500
    // A next miss could merge while its start - 500 <= 3500, i.e. start <= 4000 (window 16).
    expect(run(c, 'wwwwwww', 9)).toEqual([]); // windows 9..15
    expect(c.push(v(16, 'wave', 0.9))).toEqual([]); // starts at 4000: could still have touched
    const [span, ...rest] = c.push(v(17, 'wave', 0.9)); // 4250 - 500 > 3500: closed
    expect(rest).toEqual([]);
    expect(span).toEqual({
      startMs: 1500,
      endMs: 3500,
      windows: 1,
      said: { idle: 1 },
      uncertain: 0,
      worst: { label: 'idle', confidence: 0.61 },
      note: 'the model said idle, 0.61',
    });
    expect(c.flush()).toEqual([]);
  });

  it('merges overlapping and adjacent misses, and keeps apart those further than the margins', () => {
    const c = new SpanCatcher({ ...rules, marginMs: 0 }, { perMinuteCap: 10 });
    // Windows 0 and 4 are adjacent (0..1000, 1000..2000): merged. Window 9 (2250..) is apart.
    const spans = [...c.push(v(0, 'idle', 0.9)), ...c.push(v(4, 'idle', 0.8)), ...c.push(v(9, 'idle', 0.7)), ...c.flush()];
    expect(spans.map((s) => [s.startMs, s.endMs, s.windows])).toEqual([
      [0, 2000, 2],
      [2250, 3250, 1],
    ]);
    // With a 500 ms margin the gap of 250 ms is bridged.
    const d = new SpanCatcher(rules, { perMinuteCap: 10 });
    const merged = [...d.push(v(4, 'idle', 0.9)), ...d.push(v(9, 'idle', 0.7)), ...d.flush()];
    expect(merged.map((s) => [s.startMs, s.endMs, s.windows])).toEqual([[500, 3750, 2]]);
  });

  it('never starts a span before clampStartMs', () => {
    const c = new SpanCatcher(rules, { perMinuteCap: 10, clampStartMs: 200 });
    const spans = [...c.push(v(0, 'idle', 0.9)), ...c.flush()];
    expect(spans.map((s) => [s.startMs, s.endMs])).toEqual([[200, 1500]]);
    // A window that ends (with its margin) before the clamp has nothing left to save.
    const d = new SpanCatcher(rules, { perMinuteCap: 10, clampStartMs: 5000 });
    expect([...d.push(v(0, 'idle', 0.9)), ...d.flush()]).toEqual([]);
  });

  it('describes a span with other labels and unsure windows in plain words', () => {
    const c = new SpanCatcher(rules, { perMinuteCap: 10 });
    c.push(v(0, 'idle', 0.8));
    c.push(v(1, 'wave', 0.3)); // unsure, still counted under its top label
    c.push(v(2, 'idle', 0.61));
    c.push(v(3, 'idle', 0.9));
    c.push(v(4, 'shake', 0.5)); // unsure
    const [span] = c.flush();
    expect(span).toMatchObject({
      windows: 5,
      uncertain: 2,
      said: { idle: 3, wave: 1, shake: 1 },
      worst: { label: 'idle', confidence: 0.9 },
      note: 'the model said idle (3 windows, lowest 0.61) and was unsure twice',
    });
    expect(Object.keys(span!.said)).toEqual(['idle', 'wave', 'shake']);
  });

  it('words other mixes of misses', () => {
    const note = (...vs: Verdict[]) => {
      const c = new SpanCatcher(rules, { perMinuteCap: 10 });
      for (const x of vs) c.push(x);
      return c.flush()[0]!;
    };
    expect(note(v(0, 'idle', 0.7), v(1, 'shake', 0.8), v(2, 'shake', 0.9)).note).toBe(
      'the model said shake (2 windows, lowest 0.80) and idle (0.70)',
    );
    expect(note(v(0, 'idle', 0.7), v(1, 'wave', 0.2)).note).toBe('the model said idle (0.70) and was unsure once');
    const unsure = note(v(0, 'wave', 0.5), v(1, 'idle', 0.3), v(2, 'wave', 0.4));
    expect(unsure.note).toBe('the model was unsure 3 times');
    expect(unsure.worst).toEqual({ label: 'idle', confidence: 0.3 });
    expect(note(v(0, 'idle', 0.42)).note).toBe('the model was unsure (idle, 0.42)');
    expect(note(v(0, null, null)).note).toBe('the model gave no answer');
    expect(note(v(0, 'idle', 0.9), v(1, 'shake', 0.9)).worst).toEqual({ label: 'idle', confidence: 0.9 }); // first on ties
  });

  it('in background mode catches only sure other labels', () => {
    const c = new SpanCatcher({ ...rules, expected: 'noise', background: true, marginMs: 0 }, { perMinuteCap: 10 });
    const spans = [
      ...c.push(v(0, 'wave', 0.3)),
      ...c.push(v(8, null, null)),
      ...c.push(v(16, 'wave', 0.7)),
      ...c.push(v(24, 'noise', 0.2)),
      ...c.flush(),
    ];
    expect(spans.map((s) => [s.startMs, s.note])).toEqual([[4000, 'the model said wave, 0.70']]);
  });

  it('uses the threshold it is given', () => {
    const strict = new SpanCatcher({ ...rules, threshold: 0.95 }, { perMinuteCap: 10 });
    strict.push(v(0, 'wave', 0.9));
    expect(strict.flush().map((s) => s.uncertain)).toEqual([1]);
    const lax = new SpanCatcher({ ...rules, threshold: 0.2 }, { perMinuteCap: 10 });
    lax.push(v(0, 'wave', 0.3));
    lax.push(v(1, 'idle', 0.3));
    expect(lax.flush().map((s) => s.note)).toEqual(['the model said idle, 0.30']);
  });

  it('refuses spans over the per-minute cap, counting each refused span once', () => {
    const c = new SpanCatcher({ ...rules, marginMs: 0 }, { perMinuteCap: 2 });
    // A miss run every 10 s: windows 40k apart (every 10 s), each run two windows long.
    const spans: CaughtSpan[] = [];
    for (let s = 0; s < 12; s++) {
      spans.push(...c.push(v(s * 40, 'idle', 0.9)), ...c.push(v(s * 40 + 1, 'idle', 0.9)), ...c.push(v(s * 40 + 20, 'wave', 0.9)));
    }
    spans.push(...c.flush());
    // Starts at 0, 10 s, 20 s, …, 110 s; at most 2 in any 60 s: 0, 10; then 60, 70 (0 and 10 have aged out).
    expect(spans.map((s) => s.startMs / 1000)).toEqual([0, 10, 60, 70]);
    expect(spans.every((s) => s.windows === 2)).toBe(true);
    expect(c.capped).toBe(8);
    expect(c.counts.caught).toBe(4);
  });

  it('cuts a long run of misses into spans of at most maxSpanMs, one right after the other', () => {
    const c = new SpanCatcher(rules, { perMinuteCap: Infinity, maxSpanMs: 4000 });
    // 80 windows of 1 s every 250 ms, all idle: misses from -500 ms (clamped to 0) to 20.75 s + 0.5 s.
    const spans = [...run(c, 'i'.repeat(80)), ...c.flush()];
    expect(spans.length).toBeGreaterThan(4);
    expect(spans.every((s) => s.endMs - s.startMs <= 4000)).toBe(true);
    expect(spans[0]!.startMs).toBe(0);
    for (let k = 1; k < spans.length; k++) expect(spans[k]!.startMs).toBe(spans[k - 1]!.endMs);
    expect(spans.at(-1)!.endMs).toBe(79 * 250 + 1000 + 500);
    expect(spans.reduce((n, s) => n + s.windows, 0)).toBe(80);
  });

  it('counts and summarises what it caught', () => {
    const c = new SpanCatcher({ ...rules, marginMs: 0 }, { perMinuteCap: 100 });
    expect(c.summary()).toBe('caught nothing');
    run(c, 'iwwwwwiwwwwwiwwwwwiiwwwwwiwwwwwuwwwwwuuwwwww');
    c.push(v(100, 'shake', 0.9));
    c.flush();
    expect(c.counts).toEqual({ caught: 8, byReason: { 'other-label': 6, uncertain: 2 }, said: { idle: 5, shake: 1 } });
    expect(c.summary()).toBe('caught 8: 5 said idle, 1 said shake, 2 uncertain');
    // The snapshot is a copy.
    c.counts.said.idle = 99;
    expect(c.counts.said.idle).toBe(5);
  });

  it('mentions spans skipped by the cap in the summary', () => {
    const c = new SpanCatcher({ ...rules, marginMs: 0 }, { perMinuteCap: 1 });
    run(c, 'iwwwwwiwwwwwu');
    c.flush();
    expect(c.summary()).toBe('caught 1: 1 said idle; 2 more skipped (over 1 a minute)');
  });
});
