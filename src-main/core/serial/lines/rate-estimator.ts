import { CoreError } from '../../errors.js';
import { niceRate } from './nice-rates.js';
import { LossLog } from './loss-log.js';
import { lossScratch } from './loss-finder.js';
import { fitRate, fitScratch } from './rate-fit.js';
import { envelopeSlope, longWindow } from './loss-envelope.js';
import { GAP_OPEN, MIN_POINTS_FOR_LOSSES, PROVISIONAL, searchLosses, searchWindow, segmentStart, type ChunkRing } from './loss-search.js';
import type { RateEstimatorOptions, RateSnapshot } from './rate-snapshot.js';

export type { RateEstimatorOptions, RateSnapshot } from './rate-snapshot.js';

/**
 * Lines in a chunk from which a chunk arriving sooner than 0.9 of its lines' duration after the
 * previous one (not 0.5) shows the previous one was held up. A core too busy to read at twice a
 * fast board's pace drains its backlog at 0.6-0.9 of it, in chunks of hundreds of lines that kept
 * their late times: 250,000 lines/s read 22 % fast. Small chunks keep 0.5, so that a period still
 * stretched by uncounted losses (20 % early on) cannot drop chunks that came on time.
 */
const BIG_CHUNK = 32;
/** Refits are O(window · log window): at most this often, except while the first points come in. */
const MIN_REFIT_INTERVAL_MS = 20;
/** The envelope gives the reported period over this many points spanning this long (see #reportedSlope). */
const ENVELOPE_MIN_POINTS = 200;
const ENVELOPE_MIN_SPAN_MS = 1000;

/**
 * Estimates a line source's sampling frequency from when lines arrive.
 *
 * USB delivers lines in chunks, so each chunk is one point: the index of its last line against
 * its arrival time. (The last line of a chunk was sent at most one period before the chunk left
 * the board, so it is the freshest.) The period is the slope of a least-squares line through
 * those points; a pause starts a new segment with its own offset but the same slope.
 *
 * Lines lost in transit would bias that slope, so each refit also searches the current segment
 * for them (see loss-search.ts, loss-finder.ts) and re-indexes the points after each one before
 * fitting again; a second later each find is checked against the long envelopes
 * (loss-envelope.ts). The period said is the lower envelope's slope once the segment is long
 * enough (#reportedSlope). Where chunks are big and losses beyond telling, the ring keeps one
 * chunk per slot (#thinMs).
 *
 * This file holds the ring of chunk points (a ChunkRing), add(), the refit cadence, the snapshot
 * and the period reported; loss-search.ts holds the refit's loss search (size big gaps, find,
 * check), whose steps re-index the ring's arrays in place and so take the ring itself.
 */
export class RateEstimator {
  readonly #windowMs: number;
  readonly #pauseFactor: number;
  readonly #pauseMinMs: number;
  /** The points, their flat layout, the current fit and the losses found: shared with the loss search. */
  readonly #r: ChunkRing;
  #lines = 0;
  #pauses = 0;
  #sinceFit = 0;
  #fitAt = -Infinity;
  /** Readings (as `lines` counts them) whose losses the last fit has judged: see judgedThrough(). */
  #judged = 0;
  /** The last fit's flat points [#fitFrom, #fitTo): the current segment; #envN their indexing for #reportedSlope. */
  #fitFrom = 0;
  #fitTo = 0;
  readonly #envN: Float64Array;
  /** The period reported (see #reportedSlope); null: not worked out since the last refit. */
  #reported: number | null = null;
  /**
   * Least time between points (0: every chunk is one), set at each refit: where chunks hold 32
   * lines or more on average and losses cannot be told from jitter (hundreds of thousands of
   * lines/s), the ring keeps one point per slot this long, so it spans its window and not the
   * last second alone: a writer pushed back for longer than that second arrives late throughout
   * it, and the envelope there read 580,000 lines/s 8 % slow. Each point kept is still one
   * chunk's own arrival (the slot's earliest against the period).
   */
  #thinMs = 0;
  /** When the last chunk came, kept as a point or not (for telling a pause). */
  #lastArrival = -Infinity;

  constructor(options: RateEstimatorOptions = {}) {
    const c = Math.max(64, Math.floor(options.maxPoints ?? 4096));
    this.#windowMs = options.windowMs ?? 120_000;
    this.#pauseFactor = options.pauseFactor ?? 10;
    this.#pauseMinMs = options.pauseMinMs ?? 1000;
    if (!(this.#windowMs > 0) || !(this.#pauseFactor > 1.5) || !(this.#pauseMinMs >= 0)) {
      throw new CoreError('InvalidArguments', 'rate estimator: windowMs > 0, pauseFactor > 1.5 and pauseMinMs >= 0 are required');
    }
    const [t, cs, e, lt, ln] = Array.from({ length: 5 }, () => new Float64Array(c)) as [Float64Array, Float64Array, Float64Array, Float64Array, Float64Array];
    this.#r = {
      cap: c,
      head: 0,
      size: 0,
      t,
      c: cs,
      e,
      seg: new Int32Array(c),
      check: new Uint8Array(c),
      lt,
      ln,
      ls: new Int32Array(c),
      fitScratch: fitScratch(c),
      lossScratch: lossScratch(c),
      gapSeg: new Int32Array(c),
      segment: 0,
      dropped: 0,
      fit: null,
      losses: new LossLog(),
    };
    this.#envN = new Float64Array(c);
  }

  /** `lines` readings completed by a chunk that arrived at `arrivalMs` (monotonic clock). */
  add(arrivalMs: number, lines = 1): void {
    if (!(lines > 0) || !Number.isFinite(arrivalMs)) return;
    const r = this.#r;
    this.#lines += lines;
    let carried = 0;
    if (r.size > 0) {
      const last = (r.head + r.size - 1) % r.cap;
      const lastT = r.t[last]!;
      if (arrivalMs <= lastT) {
        // Same chunk time (a coarse clock, or a chunk fed in pieces): the point just moves on.
        r.c[last] = this.#lines;
        return;
      }
      const p = r.fit?.slope;
      const paused = p !== undefined && arrivalMs - Math.max(lastT, this.#lastArrival) > Math.max(this.#pauseFactor * p, this.#pauseMinMs);
      this.#lastArrival = arrivalMs;
      if (!paused && p !== undefined && this.#thinMs > 0 && Math.floor(arrivalMs / this.#thinMs) === Math.floor(lastT / this.#thinMs)) {
        // One point per slot: the chunk that lies lowest against the period, the slot's best
        // witness of the board's clock (the envelope is drawn under such points).
        if (arrivalMs - this.#lines * p < lastT - r.c[last]! * p) {
          r.t[last] = arrivalMs;
          r.c[last] = this.#lines;
          this.#sinceFit++;
          this.#refitIfDue();
        }
        return;
      }
      // The lines since the last point (more than this chunk's when chunks were thinned out).
      const since = this.#lines - r.c[last]!;
      if (paused) {
        r.segment++;
        this.#pauses++;
      } else if (p !== undefined && arrivalMs - lastT < (since >= BIG_CHUNK ? 0.9 : 0.5) * since * p) {
        // These lines left the board at least `lines` periods after the previous chunk's last
        // line, yet arrived much sooner: that chunk was held up (a busy event loop, a backlog
        // read in pieces). Its time says nothing about the board, so this chunk replaces it
        // (and takes over a loss still to be checked there).
        carried = r.check[last]!;
        r.size--;
      }
    }
    this.#lastArrival = arrivalMs;
    this.#append(arrivalMs);
    if (carried) r.check[(r.head + r.size - 1) % r.cap] = carried;
    this.#sinceFit++;
    this.#refitIfDue();
  }

  snapshot(): RateSnapshot {
    this.#refreshFit();
    const fit = this.#r.fit;
    const base = { droppedLines: this.#r.dropped, dropsDetectable: searchWindow(fit) !== null, pauses: this.#pauses, lines: this.#lines };
    if (!fit || this.#lines < 3 || fit.spanLines < 2) {
      return { frequencyHz: null, intervalMs: null, suggestedHz: null, jitterMs: null, confidence: 'none', relativeError: null, ...base };
    }
    const slope = this.#reportedSlope();
    const hz = 1000 / slope;
    return {
      frequencyHz: hz,
      intervalMs: slope,
      suggestedHz: niceRate(hz),
      jitterMs: fit.jitterMs,
      confidence: fit.points >= 10 && fit.relError <= 0.001 ? 'good' : 'rough',
      relativeError: fit.relError,
      ...base,
    };
  }

  /**
   * Lines found lost before reading number `line` (counted from 1, as `lines` counts them): the
   * losses of a stretch of readings, wherever they were found from. A loss placed at a chunk
   * counts as before all of that chunk's lines. Readings older than the window count its oldest.
   */
  lostBefore(line: number): number {
    this.#refreshFit();
    return this.#r.losses.lostBefore(line);
  }

  /** Losses a refit may still re-size (see LossLog.open). */
  get openLosses(): number {
    return this.#r.losses.open;
  }

  /**
   * Readings whose losses are settled: a loss shows only once a window of later arrivals has
   * come (1.5 windows: the search leaves the newest alone), so a take's count is final once this
   * reaches its last reading. All of them when losses cannot be told from jitter anyway.
   */
  judgedThrough(): number {
    this.#refreshFit();
    // Thinned chunks are in no point; nothing can be found among them either.
    return this.#thinMs > 0 ? this.#lines : this.#judged;
  }

  /** The current estimate without refitting (cheap enough for every batch); null until there is one. */
  current(): { frequencyHz: number; relativeError: number } | null {
    const fit = this.#r.fit;
    if (!fit || this.#lines < 3 || fit.spanLines < 2) return null;
    return { frequencyHz: 1000 / this.#reportedSlope(), relativeError: fit.relError };
  }

  /**
   * The period said: the slope of the lower envelope of the current segment's points once they
   * are many (else the least-squares one). A chunk can arrive late by any amount but never before
   * its last line left the board, so the earliest arrivals trace the board's clock; the least
   * squares lean on late ones. The losses still to be checked are left out of the indexing here:
   * one that is real leaves the points after it a period late, which the envelope passes under,
   * and one that is false (a host catching up after a stall, its arrivals late for a second)
   * would have made them a period early, which it cannot: with it counted, a 3 s take after a
   * 300 ms stall of the app read 0.19 % fast until the check took it back.
   */
  #reportedSlope(): number {
    const r = this.#r;
    const fit = r.fit!;
    if (this.#reported !== null) return this.#reported;
    const from = this.#fitFrom;
    const to = this.#fitTo;
    let slope = fit.slope;
    // At every chunk size: at 720,000 lines/s (a chunk ~200 lines) a writer pushed back by the PTY
    // sends late and then in a burst, never early, and the envelope read its clock within 0.01 %
    // where the least squares were 0.7-2.8 % off (replayed arrivals of five runs). A full ring is
    // as long as the estimate can look back: at such rates it may span just under a second.
    const full = to - from >= r.cap - 1;
    if (to - from >= ENVELOPE_MIN_POINTS && (full || r.lt[to - 1]! - r.lt[from]! >= ENVELOPE_MIN_SPAN_MS)) {
      const n = this.#envN;
      let open = 0;
      for (let i = from; i < to; i++) {
        const at = (r.head + i) % r.cap;
        if (i > from && (r.check[at] === PROVISIONAL || r.check[at] === GAP_OPEN)) open += r.e[at]! - r.e[(r.head + i - 1) % r.cap]!;
        n[i] = r.ln[i]! - open;
      }
      const env = envelopeSlope(n, r.lt, from, to, fit.slope);
      // Well inside the bisection's range, else something odd (a clock step) pinned it.
      if (Math.abs(env / fit.slope - 1) < 0.45) slope = env;
    }
    this.#reported = slope;
    return slope;
  }

  /**
   * For a reader that asks for an answer (stats twice a second, a take's end): the points since
   * the last fit are fitted, unless that was under 20 ms ago. A caller that asks every batch
   * (a take nearing its count) reads current() instead, which never refits.
   */
  #refreshFit(): void {
    const r = this.#r;
    if (this.#sinceFit === 0 || r.size === 0) return;
    const last = r.t[(r.head + r.size - 1) % r.cap]!;
    if (r.size < 32 || last - this.#fitAt >= MIN_REFIT_INTERVAL_MS) this.#refit(last);
  }

  /** add()'s refit cadence. */
  #refitIfDue(): void {
    const r = this.#r;
    if (this.#sinceFit === 0 || r.size === 0) return;
    const last = r.t[(r.head + r.size - 1) % r.cap]!;
    const since = last - this.#fitAt;
    if ((this.#sinceFit >= Math.max(1, r.size >> 4) && (since >= MIN_REFIT_INTERVAL_MS || r.size < 32)) || since >= 500) this.#refit(last);
  }

  reset(): void {
    const r = this.#r;
    r.head = r.size = this.#lines = r.segment = r.dropped = this.#pauses = 0;
    r.fit = null;
    this.#sinceFit = 0;
    this.#fitAt = -Infinity;
    r.losses.clear();
    this.#judged = 0;
    this.#reported = null;
    this.#fitFrom = this.#fitTo = 0;
    this.#thinMs = 0;
    this.#lastArrival = -Infinity;
  }

  #append(t: number): void {
    const r = this.#r;
    if (r.size === r.cap) this.#evict();
    const at = (r.head + r.size++) % r.cap;
    r.t[at] = t;
    r.c[at] = this.#lines;
    r.e[at] = r.dropped;
    r.seg[at] = r.segment;
    r.check[at] = 0;
    while (r.size > 1 && r.t[r.head]! < t - this.#windowMs) this.#evict();
  }

  #evict(): void {
    const r = this.#r;
    r.head = (r.head + 1) % r.cap;
    r.size--;
    // A loss is keyed by the reading before the chunk it precedes: at least the oldest chunk's count less one.
    r.losses.settle(r.c[r.head]! - 1);
  }

  #refit(now: number): void {
    const r = this.#r;
    const count = r.size;
    for (let i = 0; i < count; i++) {
      const at = (r.head + i) % r.cap;
      r.lt[i] = r.t[at]!;
      r.ln[i] = r.c[at]! + r.e[at]!;
      r.ls[i] = r.seg[at]!;
    }
    this.#sinceFit = 0;
    this.#fitAt = now;
    this.#reported = null;
    this.#fitFrom = this.#fitTo = 0;
    const fit = count >= 2 ? fitRate(r.ln, r.lt, r.ls, count, r.fitScratch) : null;
    if (!fit) return;
    r.fit = fit;
    searchLosses(r, count);
    // The search judges all but the newest 1.5 windows of points (see findLosses in
    // loss-search.ts); with losses not detectable at all, every reading is as judged as it will
    // ever be.
    const w = searchWindow(r.fit);
    const i = w === null ? count - 1 : count - Math.max(Math.ceil(1.5 * w), longWindow(r.fit.slope, w, r.cap)) - 1;
    this.#judged = i < 0 ? 0 : r.c[(r.head + i) % r.cap]!;
    // Only where chunks are big as a rule (never a board of a few hundred Hz whose host stalled).
    const dense = fit.points >= MIN_POINTS_FOR_LOSSES && fit.spanLines / (fit.points - 1) >= BIG_CHUNK;
    this.#thinMs = w === null && dense ? this.#windowMs / r.cap : 0;
    this.#fitFrom = segmentStart(r, count);
    this.#fitTo = count;
  }
}
