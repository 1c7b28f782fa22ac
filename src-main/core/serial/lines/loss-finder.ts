/**
 * Finds lines lost in transit from when chunks arrived.
 *
 * A lost line shifts every later arrival one period later than its index says. Single arrivals
 * cannot show that: USB hands lines over in bursts, so arrivals scatter over up to several
 * periods (at 200 Hz with a 16 ms latency timer, chunks routinely arrive 3 periods apart). What
 * does show it is the lower envelope: the earliest arrivals in a window after the loss sit k
 * periods above the earliest in the window before it. So for each point j we compare the minimum
 * of `t − slope·n` over the next W points with the minimum over the previous W points; a loss is
 * a plateau of that difference, W points long, k periods high.
 *
 * A slightly wrong slope adds the same drift to every window pair, so the difference is read
 * against its lower quartile, not against zero: the search works before the slope is known
 * precisely, which is when it matters, because uncounted losses are what bias the slope.
 */

/** Longest window searched; beyond this, jitter drowns a single lost line (e.g. 16 kHz with ±2 ms). */
export const MAX_LOSS_WINDOW = 512;

export interface LossScratch {
  v: Float64Array;
  m: Float64Array;
  d: Float64Array;
  q: Float64Array;
  deque: Int32Array;
}

export function lossScratch(capacity: number): LossScratch {
  const f = () => new Float64Array(capacity);
  return { v: f(), m: f(), d: f(), q: f(), deque: new Int32Array(capacity) };
}

/**
 * Points per window: the minimum of W arrivals spread over D ms lands within about D/W of the
 * envelope, and 40·D/P keeps that (and the odds of a false plateau) far below half a period.
 */
export function lossWindow(slope: number, spread: number): number | null {
  const w = Math.max(4, Math.ceil((40 * spread) / slope));
  return w <= MAX_LOSS_WINDOW ? w : null;
}

export interface Loss {
  /** Index of the first point after the loss. */
  at: number;
  lines: number;
}

/**
 * The earliest candidate loss among points [from, to) of one segment, or null. A candidate, not
 * a verdict: the estimator keeps it only if re-indexing makes the fit markedly better.
 */
export function findFirstLoss(
  n: Float64Array, t: Float64Array, from: number, to: number, slope: number, spread: number, w: number, s: LossScratch,
): Loss | null {
  if (spread < 0.4 * slope) return findFirstGap(n, t, from, to, slope);
  const len = to - from;
  const need = Math.max(2, Math.ceil(w / 2));
  const count = len - 2 * w + 1; // points with a full window on both sides
  if (count < need) return null;
  for (let i = 0; i < len; i++) s.v[i] = t[from + i]! - slope * n[from + i]!;
  slidingMin(s.v, len, w, s.m, s.deque);
  for (let i = 0; i < count; i++) s.d[i] = s.m[w + i]! - s.m[i]!;
  const q = s.q.subarray(0, count);
  q.set(s.d.subarray(0, count));
  q.sort();
  const base = q[count >> 2]!;
  const high = 0.5 * slope;
  for (let i = 0; i < count; ) {
    if (s.d[i]! - base < high) {
      i++;
      continue;
    }
    let j = i;
    while (j < count && s.d[j]! - base >= high) j++;
    if (j - i >= need) {
      const plateau = s.q.subarray(0, j - i);
      for (let k = i; k < j; k++) plateau[k - i] = s.d[k]! - base;
      plateau.sort();
      // Two losses closer than a window make a plateau of levels k1, k1+k2, k2. Taking its low
      // end never adds more than the first loss; the rest is found on the next pass.
      const lines = Math.round(plateau[Math.floor((j - i) * 0.1)]! / slope);
      if (lines < 1) return null;
      // The plateau can start early, when the last arrivals before the loss happened to be
      // late. Arrivals after it never sit below envelope + k·P, so the loss comes after the
      // last one that does. (Placing it late leaves a short bump the next pass ignores; placing
      // it early would leave a dip that reads as a second loss.)
      const envelope = s.m[i]! + base;
      const low = envelope + (lines - 0.1) * slope;
      const end = Math.min(len, 2 * w + i);
      let at = w + i;
      for (let k = w + i; k < end; k++) if (s.v[k]! < low) at = k + 1;
      if (at >= len) return null;
      return { at: from + at, lines };
    }
    i = j;
  }
  return null;
}

/**
 * When arrivals scatter over less than 0.4 period (slow boards), each gap can be read on its
 * own: it spans round(Δt/P) periods, whatever the slope's error over a few lines. This also
 * works when losses are too dense for windows, which at a few hertz they easily are.
 */
function findFirstGap(n: Float64Array, t: Float64Array, from: number, to: number, slope: number): Loss | null {
  for (let i = from + 1; i < to; i++) {
    const lines = Math.round((t[i]! - t[i - 1]!) / slope - (n[i]! - n[i - 1]!));
    if (lines >= 1) return { at: i, lines };
  }
  return null;
}

/** out[k] = min(src[k .. k+w−1]) for k in [0, len−w], in one pass with a monotonic deque. */
function slidingMin(src: Float64Array, len: number, w: number, out: Float64Array, dq: Int32Array): void {
  let head = 0;
  let tail = 0;
  for (let i = 0; i < len; i++) {
    const x = src[i]!;
    while (tail > head && src[dq[tail - 1]!]! >= x) tail--;
    dq[tail++] = i;
    if (dq[head]! <= i - w) head++;
    if (i >= w - 1) out[i - w + 1] = src[dq[head]!]!;
  }
}

/** Points apart that each period sample spans: enough to average out USB bursts, few enough that most span no loss. */
const ROBUST_SPAN = 8;

/**
 * The period as the median of (t[i+m] − t[i]) / (n[i+m] − n[i]) over points [from, to): lines
 * lost and not yet placed stretch only the few samples that span them, where they would bend a
 * least-squares slope (a board skipping 30 of every 130 readings read as 82 Hz, not 100, and the
 * losses searched for with that period were miscounted in turn). Null with too few points.
 */
export function robustSlope(n: Float64Array, t: Float64Array, from: number, to: number, scratch: Float64Array): number | null {
  const m = Math.min(ROBUST_SPAN, Math.floor((to - from) / 4));
  if (m < 1) return null;
  let k = 0;
  for (let i = from; i + m < to; i++) {
    const dn = n[i + m]! - n[i]!;
    if (dn > 0) scratch[k++] = (t[i + m]! - t[i]!) / dn;
  }
  if (k < 8) return null;
  const q = scratch.subarray(0, k);
  q.sort();
  const med = q[k >> 1]!;
  // The median alone leans toward the samples that span a loss (8 % of them shift it by a
  // percentile of the rest: 1.6 % at 100 Hz under load). The mean of the samples near it does not.
  const below = lowerQuartileDistance(q, med);
  const limit = 3 * Math.max(below, 1e-9 * med);
  let sum = 0;
  let used = 0;
  for (let i = 0; i < k; i++) {
    if (Math.abs(q[i]! - med) <= limit) {
      sum += q[i]!;
      used++;
    }
  }
  const p = used > 0 ? sum / used : med;
  return p > 0 ? p : null;
}

/** Half the interquartile range of the sorted samples: their spread, robust to the few that span a loss. */
function lowerQuartileDistance(sorted: Float64Array, med: number): number {
  const k = sorted.length;
  return Math.max(med - sorted[k >> 2]!, sorted[(3 * k) >> 2]! - med) * 1.4826 / 0.6745 / 2;
}
