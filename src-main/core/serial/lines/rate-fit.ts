/**
 * Least-squares fit of arrival time against line index, pooled over segments (runs of lines
 * between pauses) so that each segment keeps its own offset but all share one period. Kept
 * separate from the estimator so the arithmetic can be read (and tested) on plain arrays.
 */
export interface RateFit {
  /** Milliseconds per line. */
  slope: number;
  /** Points the fit kept after trimming outliers. */
  points: number;
  /** Lines spanned by the kept points, summed over segments. */
  spanLines: number;
  /** Standard deviation of arrival times around the fitted line. */
  jitterMs: number;
  /** Sum of squared residuals of the kept points, ms². */
  sse: number;
  /** Half-width of a ~95% interval of the slope, relative to it. */
  relError: number;
  /** How widely arrivals scatter above the fitted line's envelope, in ms (see summarise). */
  spread: number;
}

/** Scratch arrays sized to the window, allocated once by the caller. */
export interface FitScratch {
  keep: Uint8Array;
  resid: Float64Array;
  work: Float64Array;
  /** Σ(n − n̄)² of the last regression, for the slope's standard error. */
  sxx: number;
}

export function fitScratch(capacity: number): FitScratch {
  return { keep: new Uint8Array(capacity), resid: new Float64Array(capacity), work: new Float64Array(capacity), sxx: 0 };
}

/**
 * Fits points [0, count) of (n, t, seg), segments contiguous. One pass of trimming drops arrivals
 * more than 6 robust standard deviations out (a stalled event loop, a clock step) and refits.
 */
export function fitRate(n: Float64Array, t: Float64Array, seg: Int32Array, count: number, s: FitScratch): RateFit | null {
  s.keep.fill(1, 0, count);
  let slope = regress(n, t, seg, count, s);
  if (slope === null) return null;
  const kept = residuals(n, t, seg, count, slope, s);
  const w = s.work.subarray(0, kept);
  let at = 0;
  for (let i = 0; i < count; i++) if (s.keep[i]) w[at++] = s.resid[i]!;
  w.sort();
  const med = w[kept >> 1]!;
  for (let i = 0; i < kept; i++) w[i] = Math.abs(w[i]! - med);
  w.sort();
  const limit = 6 * 1.4826 * w[kept >> 1]!;
  let trimmed = 0;
  if (limit > 0) {
    for (let i = 0; i < count; i++) {
      if (s.keep[i] && Math.abs(s.resid[i]! - med) > limit) {
        s.keep[i] = 0;
        trimmed++;
      }
    }
  }
  if (trimmed > 0) {
    slope = regress(n, t, seg, count, s);
    if (slope === null) return null;
    residuals(n, t, seg, count, slope, s);
  }
  return summarise(n, seg, count, slope, s);
}

/** Pooled within-segment slope; null when the points cannot define one. */
function regress(n: Float64Array, t: Float64Array, seg: Int32Array, count: number, s: FitScratch): number | null {
  let sxx = 0;
  let sxy = 0;
  for (let a = 0; a < count; ) {
    let b = a;
    while (b < count && seg[b] === seg[a]) b++;
    // Centre on the segment's first point before summing: n and t can be large, their spread is not.
    const n0 = n[a]!;
    const t0 = t[a]!;
    let c = 0;
    let sn = 0;
    let st = 0;
    for (let i = a; i < b; i++) {
      if (!s.keep[i]) continue;
      c++;
      sn += n[i]! - n0;
      st += t[i]! - t0;
    }
    if (c > 1) {
      const mn = sn / c;
      const mt = st / c;
      for (let i = a; i < b; i++) {
        if (!s.keep[i]) continue;
        const dx = n[i]! - n0 - mn;
        sxx += dx * dx;
        sxy += dx * (t[i]! - t0 - mt);
      }
    }
    a = b;
  }
  s.sxx = sxx;
  if (!(sxx > 0)) return null;
  const slope = sxy / sxx;
  return slope > 0 ? slope : null;
}

/** Fills s.resid with each point's distance from its segment's fitted line; returns how many are kept. */
function residuals(n: Float64Array, t: Float64Array, seg: Int32Array, count: number, slope: number, s: FitScratch): number {
  let kept = 0;
  for (let a = 0; a < count; ) {
    let b = a;
    while (b < count && seg[b] === seg[a]) b++;
    const n0 = n[a]!;
    const t0 = t[a]!;
    let c = 0;
    let sum = 0;
    for (let i = a; i < b; i++) {
      s.resid[i] = t[i]! - t0 - slope * (n[i]! - n0);
      if (s.keep[i]) {
        c++;
        sum += s.resid[i]!;
      }
    }
    const mean = c > 0 ? sum / c : 0;
    for (let i = a; i < b; i++) s.resid[i]! -= mean;
    kept += c;
    a = b;
  }
  return kept;
}

function summarise(n: Float64Array, seg: Int32Array, count: number, slope: number, s: FitScratch): RateFit {
  let points = 0;
  let segments = 0;
  let span = 0;
  let ss = 0;
  let steps = 0;
  for (let a = 0; a < count; ) {
    let b = a;
    while (b < count && seg[b] === seg[a]) b++;
    let first = -1;
    let last = -1;
    for (let i = a; i < b; i++) {
      if (!s.keep[i]) continue;
      const r = s.resid[i]!;
      ss += r * r;
      points++;
      if (last >= 0) s.work[steps++] = Math.abs(r - s.resid[last]!);
      if (first < 0) first = i;
      last = i;
    }
    if (first >= 0) {
      segments++;
      span += n[last]! - n[first]!;
    }
    a = b;
  }
  // The spread comes from differences between neighbours, so a lost line (a step in the
  // residuals) or a slightly wrong slope (a ramp) does not inflate it. For arrivals spread
  // evenly over D ms the differences are triangular on [0, D), with 75 % below D/2; the
  // quartile, not a high percentile, so that even one chunk in five after a loss cannot move it.
  const w = s.work.subarray(0, steps);
  w.sort();
  const spread = steps > 0 ? 2 * w[Math.floor(steps * 0.75)]! : 0;
  const dof = Math.max(1, points - segments);
  return {
    slope,
    points,
    spanLines: span,
    jitterMs: Math.sqrt(ss / dof),
    sse: ss,
    relError: (2 * Math.sqrt(ss / Math.max(1, dof - 1) / s.sxx)) / slope,
    spread,
  };
}

/** Squared error of points [from, end) of one segment about a line of the given slope through their mean. */
export function segmentSse(n: Float64Array, t: Float64Array, from: number, end: number, slope: number): number {
  let mean = 0;
  for (let i = from; i < end; i++) mean += t[i]! - t[from]! - slope * (n[i]! - n[from]!);
  mean /= end - from;
  let sse = 0;
  for (let i = from; i < end; i++) sse += (t[i]! - t[from]! - slope * (n[i]! - n[from]!) - mean) ** 2;
  return sse;
}
