import type { LossLog } from './loss-log.js';
import { findFirstLoss, lossWindow, robustSlope, type LossScratch } from './loss-finder.js';
import { fitRate, segmentSse, type FitScratch, type RateFit } from './rate-fit.js';
import { linesShown, longWindow } from './loss-envelope.js';

// The loss search over a rate estimator's ring of chunk points (rate-estimator.ts), run at each
// refit: big gaps sized (sizeBigGaps), lost lines found (findLosses, with loss-finder.ts) and
// checked a second later against the long envelopes (confirmLosses, with loss-envelope.ts). The
// steps re-index the ring's points in place, so they take the ring itself, not copies.

export const MIN_POINTS_FOR_LOSSES = 16;
/** Each candidate loss costs a refit; bounds keep one refit's work small whatever the stream does. */
const MAX_LOSSES_PER_FIT = 32;
const MAX_REJECTS_PER_FIT = 3;
/**
 * Candidates passed over for lying where a loss was taken back: not rejects (they cost no refit),
 * else a host's catch-up that fooled the search once would hide every loss after it for good.
 */
const MAX_PASSED_PER_FIT = 64;
/** States of a point's loss check (ChunkRing.check). */
export const PROVISIONAL = 1;
const VETOED = 2;
/** A big gap's size (sizeBigGaps) not yet seen against a second of later arrivals. */
export const GAP_OPEN = 3;

/**
 * A rate estimator's ring of chunk points and its last fit: filled by the estimator, re-indexed in
 * place by the loss search. Points are kept at ring slots (head + i) % cap, i counted from the
 * oldest; the flat arrays hold them from 0, as laid out for the last fit.
 */
export interface ChunkRing {
  readonly cap: number;
  head: number;
  size: number;
  /** Ring of chunk points: arrival time, lines received up to it, lines found lost before it, segment. */
  readonly t: Float64Array;
  readonly c: Float64Array;
  readonly e: Float64Array;
  readonly seg: Int32Array;
  /** Per point, a loss found just before it: 0 none or settled, PROVISIONAL until checked, VETOED, GAP_OPEN. */
  readonly check: Uint8Array;
  /** The ring laid out flat for fitting. */
  readonly lt: Float64Array;
  readonly ln: Float64Array;
  readonly ls: Int32Array;
  readonly fitScratch: FitScratch;
  readonly lossScratch: LossScratch;
  /** Segments cut at big gaps, for a period that does not depend on their sizes. */
  readonly gapSeg: Int32Array;
  /** The segment new points join. */
  segment: number;
  /** Lines found lost, over the points in the ring and before them. */
  dropped: number;
  fit: RateFit | null;
  /** Every loss found, by the reading it comes before, for the stream's whole life (see loss-log.ts). */
  readonly losses: LossLog;
}

/** Points per search window for this fit; null while too few points, or where losses cannot be told from jitter. */
export function searchWindow(fit: RateFit | null): number | null {
  return fit && fit.points >= MIN_POINTS_FOR_LOSSES ? lossWindow(fit.slope, fit.spread) : null;
}

/** The first of the flat points [0, count) in the current segment. */
export function segmentStart(r: ChunkRing, count: number): number {
  let from = count;
  while (from > 0 && r.ls[from - 1] === r.segment) from--;
  return from;
}

/**
 * A refit's loss search over the flat points [0, count), fitted into r.fit: big gaps re-sized,
 * new losses found, and those a second old checked; each change refits r.fit.
 */
export function searchLosses(r: ChunkRing, count: number): void {
  sizeBigGaps(r, count);
  findLosses(r, count);
  confirmLosses(r, count);
}

/** Records `lines` (may be negative: a gap re-sized) found lost just before the chunk at ring offset `a`. */
function logLoss(r: ChunkRing, a: number, lines: number): void {
  const ra = (r.head + a) % r.cap;
  // The chunk's readings come after the loss: it lies after the previous chunk's last one.
  const after = a > 0 ? r.c[(r.head + a - 1) % r.cap]! : r.c[ra]! - 1;
  r.losses.add(after, lines);
}

/**
 * Silences far longer than the arrivals' spread, after which arrivals stay late (a board that
 * stalls its loop and skips the readings due meanwhile: 30 of every 130 at 100 Hz), are sized
 * at every refit with the period as it stands, not once with the period of when they were
 * found: early on that period is biased by the very gaps not counted yet, and the greedy search
 * kept 30 lost lines as 24 for good. A stalled host cannot look like this: the lines it reads
 * late arrive together, so the silence holds as many lines as it lasted.
 */
function sizeBigGaps(r: ChunkRing, count: number): void {
  const w = searchWindow(r.fit);
  const fit = r.fit!;
  if (w === null) return;
  const { head, cap, c, e, check, lt, ln, ls } = r;
  const from = segmentStart(r, count);
  if (count - from < MIN_POINTS_FOR_LOSSES) return;
  const robust = robustSlope(ln, lt, from, count, r.lossScratch.q);
  const p0 = robust !== null && fit.slope > robust * 1.05 ? robust : fit.slope;
  const big = Math.max(3 * p0, 4 * fit.spread);
  const long = longWindow(fit.slope, w, cap);
  // The period for sizing them is fitted between them (each stretch its own offset, as across a
  // pause), so it does not depend on how they are sized: sizing with a period that did made
  // the two agree on the wrong answer.
  const seg = r.gapSeg;
  let cut = 0;
  for (let i = 0; i < count; i++) seg[i] = ls[i]! * cap + cut;
  let gaps = 0;
  for (let a = from + 1; a < count - w; a++) {
    const ra = (head + a) % cap;
    const rb = (head + a - 1) % cap;
    if (lt[a]! - lt[a - 1]! - (c[ra]! - c[rb]!) * p0 >= big) {
      cut++;
      gaps++;
    }
    seg[a] = ls[a]! * cap + cut;
  }
  for (let a = count - w; a < count; a++) if (a > from) seg[a] = ls[a]! * cap + cut;
  if (gaps === 0) return;
  const pooled = fitRate(ln, lt, seg, count, r.fitScratch);
  if (!pooled) return;
  const p = pooled.slope;
  let changed = false;
  for (let a = from + 1; a < count - w; a++) {
    if (seg[a] === seg[a - 1]) continue;
    const ra = (head + a) % cap;
    // A find still to be checked, or taken back: the long check owns it (sizing it here too
    // made the two take turns, each undoing the other).
    if (check[ra] === PROVISIONAL || check[ra] === VETOED) continue;
    const rb = (head + a - 1) % cap;
    const had = e[ra]! - e[rb]!;
    // Sized by the envelopes (the silence's ends are a poll apart): the lowest arrivals after
    // it sit that many periods above the lowest before it.
    let before = Infinity;
    for (let j = Math.max(from, a - w); j < a; j++) before = Math.min(before, lt[j]! - p * ln[j]!);
    // After it, a second of arrivals up to the next big gap once they have come (at least w
    // points): a host catching up after a stall delivers late for a while, and w points of that
    // read as a silence a period too long. Until that second has come the size stays open.
    const end = Math.min(count, a + long);
    let after = Infinity;
    for (let j = a; j < end && (j < a + w || seg[j] === seg[a]); j++) after = Math.min(after, lt[j]! - p * (ln[j]! - had));
    const k = Math.max(0, Math.round((after - before) / p));
    check[ra] = k > 0 && a + long > count ? GAP_OPEN : 0;
    if (k === had) continue;
    for (let i = a; i < count; i++) {
      ln[i]! += k - had;
      e[(head + i) % cap]! += k - had;
    }
    r.dropped += k - had;
    logLoss(r, a, k - had);
    changed = true;
  }
  if (!changed) return;
  const refit = fitRate(ln, lt, ls, count, r.fitScratch);
  if (refit) r.fit = refit;
}

/** A loss found near ring offset `at` (within w points) was vetoed: the search does not take it again. */
function vetoedNear(r: ChunkRing, at: number, w: number, from: number, count: number): boolean {
  for (let i = Math.max(from, at - w); i < Math.min(count, at + w + 1); i++) if (r.check[(r.head + i) % r.cap] === VETOED) return true;
  return false;
}

/**
 * The search's losses are counted at once (the rate must not wait for them) and checked once a
 * second of arrivals has come after them (see longWindow): a loss the long envelopes do not
 * show is taken back, and the search does not find it again.
 */
function confirmLosses(r: ChunkRing, count: number): void {
  const fit = r.fit!;
  const w = searchWindow(r.fit);
  if (w === null) return;
  const { head, cap, e, check, lt, ln } = r;
  const long = longWindow(fit.slope, w, cap);
  const from = segmentStart(r, count);
  let changed = false;
  for (let a = from + 1; a + long <= count; a++) {
    const ra = (head + a) % cap;
    if (check[ra] !== PROVISIONAL) continue;
    const k = e[ra]! - e[(head + a - 1) % cap]!;
    // The most lost lines the envelopes show (a find may be right that something was lost and
    // wrong about how much): the rest is taken back, and all of it leaves the point to the
    // search no more.
    const keep = Math.min(Math.max(k, 0), linesShown(ln, lt, Math.max(from, a - long), a, a + long, fit.slope, k));
    if (k <= 0 || keep === k) {
      check[ra] = 0;
      continue;
    }
    const back = k - keep;
    for (let i = a; i < count; i++) {
      ln[i]! -= back;
      e[(head + i) % cap]! -= back;
    }
    r.dropped -= back;
    logLoss(r, a, -back);
    check[ra] = keep === 0 ? VETOED : 0;
    changed = true;
  }
  if (!changed) return;
  const refit = fitRate(ln, lt, r.ls, count, r.fitScratch);
  if (refit) r.fit = refit;
}

/** Searches the current segment for lost lines; each one kept is re-indexed and refitted. */
function findLosses(r: ChunkRing, count: number): void {
  const { head, cap, e, check, lt, ln, ls } = r;
  let from = segmentStart(r, count);
  for (let found = 0, rejected = 0, passed = 0; found < MAX_LOSSES_PER_FIT && rejected < MAX_REJECTS_PER_FIT && passed < MAX_PASSED_PER_FIT; ) {
    const w = searchWindow(r.fit);
    if (w === null) return;
    const fit = r.fit!;
    const loss = findFirstLoss(ln, lt, from, count, fit.slope, fit.spread, w, r.lossScratch);
    // The newest w points may hold a loss not yet visible; judge only what lies before them.
    const end = count - w;
    if (!loss || loss.at >= end - (w >> 1)) return;
    if (vetoedNear(r, loss.at, w, from, count)) {
      from = loss.at;
      passed++;
      continue;
    }
    const before = segmentSse(ln, lt, from, end, fit.slope);
    for (let i = loss.at; i < count; i++) ln[i]! += loss.lines;
    const after = fitRate(ln, lt, ls, count, r.fitScratch);
    // Accounting for a real loss of h = k·P ms removes a step from the residuals: after
    // refitting the slope that is h²·N·f(1−f)(1−3f(1−f)) of squared error for a step at
    // fraction f of N points. Demand a quarter of it (and of w/2 points' worth): a false
    // find, or one that papers over an earlier misplaced loss, gains far less, and accepting
    // it would bend the slope for every later search.
    const span = end - from;
    const f = (loss.at - from) / span;
    const g = f * (1 - f) * (1 - 3 * f * (1 - f));
    const need = 0.25 * (loss.lines * fit.slope) ** 2 * Math.max(span * g, w / 2);
    const gain = after ? before - segmentSse(ln, lt, from, end, after.slope) : -Infinity;
    if (after && gain > need) {
      for (let i = loss.at; i < count; i++) e[(head + i) % cap]! += loss.lines;
      r.dropped += loss.lines;
      logLoss(r, loss.at, loss.lines);
      check[(head + loss.at) % cap] = PROVISIONAL;
      r.fit = after;
      found++;
    } else {
      for (let i = loss.at; i < count; i++) ln[i]! -= loss.lines;
      from = loss.at;
      rejected++;
    }
  }
}
