import { MAX_LOSS_WINDOW } from './loss-finder.js';

// The second look at a lost line the search found (confirmLosses in loss-search.ts): over a long
// window of arrivals, against their lower envelope, where a board's sawtooth or a host's
// hesitation cannot pass for one.

/**
 * Points a loss is checked over on each side: a second of arrivals (at least two search
 * windows, at most MAX_LOSS_WINDOW and half the ring). The search's own windows are sized to the arrivals' jitter
 * from one chunk to the next, which a board that prints "when due" from a loop hides: its lines
 * leave up to a period late, later and later, then two together (a sawtooth one period high,
 * tens of lines long). A host that stalls for a moment lifts a stretch of that by a few ms, and
 * the short windows read a lost line: two of them in a 6.5 s stream read 100 Hz as 100.34 Hz.
 */
export function longWindow(slope: number, w: number, cap: number): number {
  return Math.min(MAX_LOSS_WINDOW, cap >> 1, Math.max(2 * w, Math.ceil(1000 / slope)));
}

/**
 * How many lost lines before `at` the arrivals show: the arrivals over points [at, to) (indexed
 * with `counted` lines lost before `at`) all sit at least (lines − ½) periods above the lower
 * envelope of those over [from, at), carried on, for lines up to the number returned. A lost line
 * makes every later arrival a period late, and none can come early, where a sawtooth or a burst of
 * late arrivals leaves the envelope where it was. The envelope's own slope, not the fitted period:
 * a period bent by a false loss (0.34 %) drifts a second of points by 3 ms. 0 too near the
 * stream's start (or a pause) to have an envelope before it: a loss there cannot be told from the
 * period still settling (what lost lines would be found in the first 8 points).
 */
export function linesShown(n: Float64Array, t: Float64Array, from: number, at: number, to: number, period: number, counted: number): number {
  if (at - from < 8) return 0;
  const slope = envelopeSlope(n, t, from, at, period);
  let before = Infinity;
  for (let i = from; i < at; i++) before = Math.min(before, t[i]! - slope * (n[i]! - n[from]!));
  let after = Infinity;
  // The points from `at` on are indexed with `counted` lost lines: taken back out for the check.
  for (let i = at; i < to; i++) after = Math.min(after, t[i]! - slope * (n[i]! - counted - n[from]!));
  return Math.max(0, Math.floor((after - before) / period + 0.5));
}

/**
 * The slope of the line under points [from, to) that lies closest to them (the lower envelope
 * as a linear programme: minimise Σ(t − a − b·n) with every t ≥ a + b·n). For a given b the best a
 * is min(t − b·n), so the sum is N·max(b·n − t) − b·Σn: convex in b, its slope's sign found by
 * bisection within ±50 % of `period`.
 */
export function envelopeSlope(n: Float64Array, t: Float64Array, from: number, to: number, period: number): number {
  let mean = 0;
  for (let i = from; i < to; i++) mean += n[i]! - n[from]!;
  mean /= to - from;
  let lo = 0.5 * period;
  let hi = 1.5 * period;
  for (let it = 0; it < 48; it++) {
    const b = 0.5 * (lo + hi);
    let best = -Infinity;
    let at = from;
    for (let i = from; i < to; i++) {
      const v = b * (n[i]! - n[from]!) - (t[i]! - t[from]!);
      if (v > best) {
        best = v;
        at = i;
      }
    }
    if (n[at]! - n[from]! < mean) lo = b;
    else hi = b;
  }
  return 0.5 * (lo + hi);
}
