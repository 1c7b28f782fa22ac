import { CoreError } from '../../errors.js';
import { niceRate } from './nice-rates.js';
import { LossLog } from './loss-log.js';
import { findFirstLoss, lossScratch, lossWindow, robustSlope, type LossScratch } from './loss-finder.js';
import { fitRate, fitScratch, segmentSse, type FitScratch, type RateFit } from './rate-fit.js';
import { envelopeSlope, linesShown, longWindow } from './loss-envelope.js';
import type { RateEstimatorOptions, RateSnapshot } from './rate-snapshot.js';

export type { RateEstimatorOptions, RateSnapshot } from './rate-snapshot.js';

const MIN_POINTS_FOR_LOSSES = 16;
/** Each candidate loss costs a refit; bounds keep one refit's work small whatever the stream does. */
const MAX_LOSSES_PER_FIT = 32;
const MAX_REJECTS_PER_FIT = 3;
/**
 * Candidates passed over for lying where a loss was taken back: not rejects (they cost no refit),
 * else a host's catch-up that fooled the search once would hide every loss after it for good.
 */
const MAX_PASSED_PER_FIT = 64;
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
/** States of a point's loss check (#check). */
const PROVISIONAL = 1;
/** The envelope gives the reported period over this many points spanning this long (see #reportedSlope). */
const ENVELOPE_MIN_POINTS = 200;
const ENVELOPE_MIN_SPAN_MS = 1000;
const VETOED = 2;
/** A big gap's size (#sizeBigGaps) not yet seen against a second of later arrivals. */
const GAP_OPEN = 3;

/**
 * Estimates a line source's sampling frequency from when lines arrive.
 *
 * USB delivers lines in chunks, so each chunk is one point: the index of its last line against
 * its arrival time. (The last line of a chunk was sent at most one period before the chunk left
 * the board, so it is the freshest.) The period is the slope of a least-squares line through
 * those points; a pause starts a new segment with its own offset but the same slope.
 *
 * Lines lost in transit would bias that slope, so each refit also searches the current segment
 * for them (see loss-finder.ts) and re-indexes the points after each one before fitting again;
 * a second later each find is checked against the long envelopes (loss-envelope.ts). The period
 * said is the lower envelope's slope once the segment is long enough (#reportedSlope). Where
 * chunks are big and losses beyond telling, the ring keeps one chunk per slot (#thinMs).
 *
 * Kept whole (~520 lines): the refit's steps (fit, size gaps, find, check, report) share the ring's eight arrays in place.
 */
export class RateEstimator {
  readonly #cap: number;
  readonly #windowMs: number;
  readonly #pauseFactor: number;
  readonly #pauseMinMs: number;
  /** Ring of chunk points: arrival time, lines received up to it, lines found lost before it, segment. */
  readonly #t: Float64Array;
  readonly #c: Float64Array;
  readonly #e: Float64Array;
  readonly #seg: Int32Array;
  /** Per point, a loss found just before it: 0 none or settled, PROVISIONAL until checked, VETOED, GAP_OPEN. */
  readonly #check: Uint8Array;
  /** The ring laid out flat for fitting. */
  readonly #lt: Float64Array;
  readonly #ln: Float64Array;
  readonly #ls: Int32Array;
  readonly #fitScratch: FitScratch;
  readonly #lossScratch: LossScratch;
  /** Segments cut at big gaps, for a period that does not depend on their sizes. */
  readonly #gapSeg: Int32Array;
  #head = 0;
  #size = 0;
  #lines = 0;
  #segment = 0;
  #dropped = 0;
  #pauses = 0;
  #fit: RateFit | null = null;
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
  /** Every loss found, by the reading it comes before, for the stream's whole life (see loss-log.ts). */
  readonly #losses = new LossLog();

  constructor(options: RateEstimatorOptions = {}) {
    this.#cap = Math.max(64, Math.floor(options.maxPoints ?? 4096));
    this.#windowMs = options.windowMs ?? 120_000;
    this.#pauseFactor = options.pauseFactor ?? 10;
    this.#pauseMinMs = options.pauseMinMs ?? 1000;
    if (!(this.#windowMs > 0) || !(this.#pauseFactor > 1.5) || !(this.#pauseMinMs >= 0)) {
      throw new CoreError('InvalidArguments', 'rate estimator: windowMs > 0, pauseFactor > 1.5 and pauseMinMs >= 0 are required');
    }
    const c = this.#cap;
    [this.#t, this.#c, this.#e, this.#lt, this.#ln] = Array.from({ length: 5 }, () => new Float64Array(c)) as [Float64Array, Float64Array, Float64Array, Float64Array, Float64Array];
    [this.#seg, this.#ls] = [new Int32Array(c), new Int32Array(c)];
    this.#check = new Uint8Array(c);
    this.#fitScratch = fitScratch(c);
    this.#lossScratch = lossScratch(c);
    this.#gapSeg = new Int32Array(c);
    this.#envN = new Float64Array(c);
  }

  /** `lines` readings completed by a chunk that arrived at `arrivalMs` (monotonic clock). */
  add(arrivalMs: number, lines = 1): void {
    if (!(lines > 0) || !Number.isFinite(arrivalMs)) return;
    this.#lines += lines;
    let carried = 0;
    if (this.#size > 0) {
      const last = (this.#head + this.#size - 1) % this.#cap;
      const lastT = this.#t[last]!;
      if (arrivalMs <= lastT) {
        // Same chunk time (a coarse clock, or a chunk fed in pieces): the point just moves on.
        this.#c[last] = this.#lines;
        return;
      }
      const p = this.#fit?.slope;
      const paused = p !== undefined && arrivalMs - Math.max(lastT, this.#lastArrival) > Math.max(this.#pauseFactor * p, this.#pauseMinMs);
      this.#lastArrival = arrivalMs;
      if (!paused && p !== undefined && this.#thinMs > 0 && Math.floor(arrivalMs / this.#thinMs) === Math.floor(lastT / this.#thinMs)) {
        // One point per slot: the chunk that lies lowest against the period, the slot's best
        // witness of the board's clock (the envelope is drawn under such points).
        if (arrivalMs - this.#lines * p < lastT - this.#c[last]! * p) {
          this.#t[last] = arrivalMs;
          this.#c[last] = this.#lines;
          this.#sinceFit++;
          this.#refitIfDue();
        }
        return;
      }
      // The lines since the last point (more than this chunk's when chunks were thinned out).
      const since = this.#lines - this.#c[last]!;
      if (paused) {
        this.#segment++;
        this.#pauses++;
      } else if (p !== undefined && arrivalMs - lastT < (since >= BIG_CHUNK ? 0.9 : 0.5) * since * p) {
        // These lines left the board at least `lines` periods after the previous chunk's last
        // line, yet arrived much sooner: that chunk was held up (a busy event loop, a backlog
        // read in pieces). Its time says nothing about the board, so this chunk replaces it
        // (and takes over a loss still to be checked there).
        carried = this.#check[last]!;
        this.#size--;
      }
    }
    this.#lastArrival = arrivalMs;
    this.#append(arrivalMs);
    if (carried) this.#check[(this.#head + this.#size - 1) % this.#cap] = carried;
    this.#sinceFit++;
    this.#refitIfDue();
  }

  snapshot(): RateSnapshot {
    this.#refreshFit();
    const fit = this.#fit;
    const base = { droppedLines: this.#dropped, dropsDetectable: this.#lossWindow() !== null, pauses: this.#pauses, lines: this.#lines };
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
    return this.#losses.lostBefore(line);
  }

  /** Losses a refit may still re-size (see LossLog.open). */
  get openLosses(): number {
    return this.#losses.open;
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
    const fit = this.#fit;
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
    const fit = this.#fit!;
    if (this.#reported !== null) return this.#reported;
    const from = this.#fitFrom;
    const to = this.#fitTo;
    let slope = fit.slope;
    // At every chunk size: at 720,000 lines/s (a chunk ~200 lines) a writer pushed back by the PTY
    // sends late and then in a burst, never early, and the envelope read its clock within 0.01 %
    // where the least squares were 0.7-2.8 % off (replayed arrivals of five runs). A full ring is
    // as long as the estimate can look back: at such rates it may span just under a second.
    const full = to - from >= this.#cap - 1;
    if (to - from >= ENVELOPE_MIN_POINTS && (full || this.#lt[to - 1]! - this.#lt[from]! >= ENVELOPE_MIN_SPAN_MS)) {
      const n = this.#envN;
      let open = 0;
      for (let i = from; i < to; i++) {
        const r = (this.#head + i) % this.#cap;
        if (i > from && (this.#check[r] === PROVISIONAL || this.#check[r] === GAP_OPEN)) open += this.#e[r]! - this.#e[(this.#head + i - 1) % this.#cap]!;
        n[i] = this.#ln[i]! - open;
      }
      const env = envelopeSlope(n, this.#lt, from, to, fit.slope);
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
    if (this.#sinceFit === 0 || this.#size === 0) return;
    const last = this.#t[(this.#head + this.#size - 1) % this.#cap]!;
    if (this.#size < 32 || last - this.#fitAt >= MIN_REFIT_INTERVAL_MS) this.#refit(last);
  }

  /** add()'s refit cadence. */
  #refitIfDue(): void {
    if (this.#sinceFit === 0 || this.#size === 0) return;
    const last = this.#t[(this.#head + this.#size - 1) % this.#cap]!;
    const since = last - this.#fitAt;
    if ((this.#sinceFit >= Math.max(1, this.#size >> 4) && (since >= MIN_REFIT_INTERVAL_MS || this.#size < 32)) || since >= 500) this.#refit(last);
  }

  /** Records `lines` (may be negative: a gap re-sized) found lost just before the chunk at ring offset `a`. */
  #logLoss(a: number, lines: number): void {
    const ra = (this.#head + a) % this.#cap;
    // The chunk's readings come after the loss: it lies after the previous chunk's last one.
    const after = a > 0 ? this.#c[(this.#head + a - 1) % this.#cap]! : this.#c[ra]! - 1;
    this.#losses.add(after, lines);
  }

  reset(): void {
    this.#head = this.#size = this.#lines = this.#segment = this.#dropped = this.#pauses = 0;
    this.#fit = null;
    this.#sinceFit = 0;
    this.#fitAt = -Infinity;
    this.#losses.clear();
    this.#judged = 0;
    this.#reported = null;
    this.#fitFrom = this.#fitTo = 0;
    this.#thinMs = 0;
    this.#lastArrival = -Infinity;
  }

  #append(t: number): void {
    if (this.#size === this.#cap) this.#evict();
    const at = (this.#head + this.#size++) % this.#cap;
    this.#t[at] = t;
    this.#c[at] = this.#lines;
    this.#e[at] = this.#dropped;
    this.#seg[at] = this.#segment;
    this.#check[at] = 0;
    while (this.#size > 1 && this.#t[this.#head]! < t - this.#windowMs) this.#evict();
  }

  #evict(): void {
    this.#head = (this.#head + 1) % this.#cap;
    this.#size--;
    // A loss is keyed by the reading before the chunk it precedes: at least the oldest chunk's count less one.
    this.#losses.settle(this.#c[this.#head]! - 1);
  }

  #lossWindow(): number | null {
    const fit = this.#fit;
    return fit && fit.points >= MIN_POINTS_FOR_LOSSES ? lossWindow(fit.slope, fit.spread) : null;
  }

  #refit(now: number): void {
    const count = this.#size;
    for (let i = 0; i < count; i++) {
      const at = (this.#head + i) % this.#cap;
      this.#lt[i] = this.#t[at]!;
      this.#ln[i] = this.#c[at]! + this.#e[at]!;
      this.#ls[i] = this.#seg[at]!;
    }
    this.#sinceFit = 0;
    this.#fitAt = now;
    this.#reported = null;
    this.#fitFrom = this.#fitTo = 0;
    const fit = count >= 2 ? fitRate(this.#ln, this.#lt, this.#ls, count, this.#fitScratch) : null;
    if (!fit) return;
    this.#fit = fit;
    this.#sizeBigGaps(count);
    this.#findLosses(count);
    this.#confirmLosses(count);
    // The search judges all but the newest 1.5 windows of points (see #findLosses); with losses
    // not detectable at all, every reading is as judged as it will ever be.
    const w = this.#lossWindow();
    const i = w === null ? count - 1 : count - Math.max(Math.ceil(1.5 * w), longWindow(this.#fit.slope, w, this.#cap)) - 1;
    this.#judged = i < 0 ? 0 : this.#c[(this.#head + i) % this.#cap]!;
    // Only where chunks are big as a rule (never a board of a few hundred Hz whose host stalled).
    const dense = fit.points >= MIN_POINTS_FOR_LOSSES && fit.spanLines / (fit.points - 1) >= BIG_CHUNK;
    this.#thinMs = w === null && dense ? this.#windowMs / this.#cap : 0;
    let from = count;
    while (from > 0 && this.#ls[from - 1] === this.#segment) from--;
    this.#fitFrom = from;
    this.#fitTo = count;
  }

  /**
   * Silences far longer than the arrivals' spread, after which arrivals stay late (a board that
   * stalls its loop and skips the readings due meanwhile: 30 of every 130 at 100 Hz), are sized
   * at every refit with the period as it stands, not once with the period of when they were
   * found: early on that period is biased by the very gaps not counted yet, and the greedy search
   * kept 30 lost lines as 24 for good. A stalled host cannot look like this: the lines it reads
   * late arrive together, so the silence holds as many lines as it lasted.
   */
  #sizeBigGaps(count: number): void {
    const w = this.#lossWindow();
    const fit = this.#fit!;
    if (w === null) return;
    let from = count;
    while (from > 0 && this.#ls[from - 1] === this.#segment) from--;
    if (count - from < MIN_POINTS_FOR_LOSSES) return;
    const robust = robustSlope(this.#ln, this.#lt, from, count, this.#lossScratch.q);
    const p0 = robust !== null && fit.slope > robust * 1.05 ? robust : fit.slope;
    const big = Math.max(3 * p0, 4 * fit.spread);
    const long = longWindow(fit.slope, w, this.#cap);
    // The period for sizing them is fitted between them (each stretch its own offset, as across a
    // pause), so it does not depend on how they are sized: sizing with a period that did made
    // the two agree on the wrong answer.
    const seg = this.#gapSeg;
    let cut = 0;
    for (let i = 0; i < count; i++) seg[i] = this.#ls[i]! * this.#cap + cut;
    let gaps = 0;
    for (let a = from + 1; a < count - w; a++) {
      const ra = (this.#head + a) % this.#cap;
      const rb = (this.#head + a - 1) % this.#cap;
      if (this.#lt[a]! - this.#lt[a - 1]! - (this.#c[ra]! - this.#c[rb]!) * p0 >= big) {
        cut++;
        gaps++;
      }
      seg[a] = this.#ls[a]! * this.#cap + cut;
    }
    for (let a = count - w; a < count; a++) if (a > from) seg[a] = this.#ls[a]! * this.#cap + cut;
    if (gaps === 0) return;
    const pooled = fitRate(this.#ln, this.#lt, seg, count, this.#fitScratch);
    if (!pooled) return;
    const p = pooled.slope;
    let changed = false;
    for (let a = from + 1; a < count - w; a++) {
      if (seg[a] === seg[a - 1]) continue;
      const ra = (this.#head + a) % this.#cap;
      // A find still to be checked, or taken back: the long check owns it (sizing it here too
      // made the two take turns, each undoing the other).
      if (this.#check[ra] === PROVISIONAL || this.#check[ra] === VETOED) continue;
      const rb = (this.#head + a - 1) % this.#cap;
      const had = this.#e[ra]! - this.#e[rb]!;
      // Sized by the envelopes (the silence's ends are a poll apart): the lowest arrivals after
      // it sit that many periods above the lowest before it.
      let before = Infinity;
      for (let j = Math.max(from, a - w); j < a; j++) before = Math.min(before, this.#lt[j]! - p * this.#ln[j]!);
      // After it, a second of arrivals up to the next big gap once they have come (at least w
      // points): a host catching up after a stall delivers late for a while, and w points of that
      // read as a silence a period too long. Until that second has come the size stays open.
      const end = Math.min(count, a + long);
      let after = Infinity;
      for (let j = a; j < end && (j < a + w || seg[j] === seg[a]); j++) after = Math.min(after, this.#lt[j]! - p * (this.#ln[j]! - had));
      const k = Math.max(0, Math.round((after - before) / p));
      this.#check[ra] = k > 0 && a + long > count ? GAP_OPEN : 0;
      if (k === had) continue;
      for (let i = a; i < count; i++) {
        this.#ln[i]! += k - had;
        this.#e[(this.#head + i) % this.#cap]! += k - had;
      }
      this.#dropped += k - had;
      this.#logLoss(a, k - had);
      changed = true;
    }
    if (!changed) return;
    const refit = fitRate(this.#ln, this.#lt, this.#ls, count, this.#fitScratch);
    if (refit) this.#fit = refit;
  }

  /** A loss found near ring offset `at` (within w points) was vetoed: the search does not take it again. */
  #vetoedNear(at: number, w: number, from: number, count: number): boolean {
    for (let i = Math.max(from, at - w); i < Math.min(count, at + w + 1); i++) if (this.#check[(this.#head + i) % this.#cap] === VETOED) return true;
    return false;
  }

  /**
   * The search's losses are counted at once (the rate must not wait for them) and checked once a
   * second of arrivals has come after them (see longWindow): a loss the long envelopes do not
   * show is taken back, and the search does not find it again.
   */
  #confirmLosses(count: number): void {
    const fit = this.#fit!;
    const w = this.#lossWindow();
    if (w === null) return;
    const long = longWindow(fit.slope, w, this.#cap);
    let from = count;
    while (from > 0 && this.#ls[from - 1] === this.#segment) from--;
    let changed = false;
    for (let a = from + 1; a + long <= count; a++) {
      const ra = (this.#head + a) % this.#cap;
      if (this.#check[ra] !== PROVISIONAL) continue;
      const k = this.#e[ra]! - this.#e[(this.#head + a - 1) % this.#cap]!;
      // The most lost lines the envelopes show (a find may be right that something was lost and
      // wrong about how much): the rest is taken back, and all of it leaves the point to the
      // search no more.
      const keep = Math.min(Math.max(k, 0), linesShown(this.#ln, this.#lt, Math.max(from, a - long), a, a + long, fit.slope, k));
      if (k <= 0 || keep === k) {
        this.#check[ra] = 0;
        continue;
      }
      const back = k - keep;
      for (let i = a; i < count; i++) {
        this.#ln[i]! -= back;
        this.#e[(this.#head + i) % this.#cap]! -= back;
      }
      this.#dropped -= back;
      this.#logLoss(a, -back);
      this.#check[ra] = keep === 0 ? VETOED : 0;
      changed = true;
    }
    if (!changed) return;
    const refit = fitRate(this.#ln, this.#lt, this.#ls, count, this.#fitScratch);
    if (refit) this.#fit = refit;
  }

  /** Searches the current segment for lost lines; each one kept is re-indexed and refitted. */
  #findLosses(count: number): void {
    let from = count;
    while (from > 0 && this.#ls[from - 1] === this.#segment) from--;
    for (let found = 0, rejected = 0, passed = 0; found < MAX_LOSSES_PER_FIT && rejected < MAX_REJECTS_PER_FIT && passed < MAX_PASSED_PER_FIT; ) {
      const w = this.#lossWindow();
      if (w === null) return;
      const fit = this.#fit!;
      const loss = findFirstLoss(this.#ln, this.#lt, from, count, fit.slope, fit.spread, w, this.#lossScratch);
      // The newest w points may hold a loss not yet visible; judge only what lies before them.
      const end = count - w;
      if (!loss || loss.at >= end - (w >> 1)) return;
      if (this.#vetoedNear(loss.at, w, from, count)) {
        from = loss.at;
        passed++;
        continue;
      }
      const before = segmentSse(this.#ln, this.#lt, from, end, fit.slope);
      for (let i = loss.at; i < count; i++) this.#ln[i]! += loss.lines;
      const after = fitRate(this.#ln, this.#lt, this.#ls, count, this.#fitScratch);
      // Accounting for a real loss of h = k·P ms removes a step from the residuals: after
      // refitting the slope that is h²·N·f(1−f)(1−3f(1−f)) of squared error for a step at
      // fraction f of N points. Demand a quarter of it (and of w/2 points' worth): a false
      // find, or one that papers over an earlier misplaced loss, gains far less, and accepting
      // it would bend the slope for every later search.
      const span = end - from;
      const f = (loss.at - from) / span;
      const g = f * (1 - f) * (1 - 3 * f * (1 - f));
      const need = 0.25 * (loss.lines * fit.slope) ** 2 * Math.max(span * g, w / 2);
      const gain = after ? before - segmentSse(this.#ln, this.#lt, from, end, after.slope) : -Infinity;
      if (after && gain > need) {
        for (let i = loss.at; i < count; i++) this.#e[(this.#head + i) % this.#cap]! += loss.lines;
        this.#dropped += loss.lines;
        this.#logLoss(loss.at, loss.lines);
        this.#check[(this.#head + loss.at) % this.#cap] = PROVISIONAL;
        this.#fit = after;
        found++;
      } else {
        for (let i = loss.at; i < count; i++) this.#ln[i]! -= loss.lines;
        from = loss.at;
        rejected++;
      }
    }
  }
}
