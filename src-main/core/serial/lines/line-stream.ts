import { systemClock, type Clock } from '../../clock.js';
import { CoreError } from '../../errors.js';
import type { BadLineReason, BadLineSample } from './bad-lines.js';
import { LineSplitter, type LineSink } from './line-splitter.js';
import { NumericLineParser, type LineOutcome, type ParserStats } from './numeric-line-parser.js';
import { RateEstimator, type RateEstimatorOptions, type RateSnapshot } from './rate-estimator.js';
import { DEFAULT_BATCH_VALUES, RowBatcher, type RowBatch } from './row-batcher.js';

export interface AxisOverride {
  name?: string;
  units?: string;
}

/** What the user says about the stream; it wins over what was detected. */
export interface LineOverrides {
  frequencyHz?: number | null;
  axes?: readonly AxisOverride[] | null;
}

export interface NumericLineReaderOptions {
  clock?: Clock;
  maxLineBytes?: number;
  confirmLines?: number;
  maxAxes?: number;
  batchValues?: number;
  rate?: RateEstimatorOptions;
  overrides?: LineOverrides;
}

/** The parser's counts and layout, with the axes as named and the rate. */
export interface LineReaderStats extends Omit<ParserStats, 'names'> {
  axes: Array<{ name: string; units: string }>;
  /** The user's frequency if set, else the detected one. */
  frequencyHz: number | null;
  frequencySource: 'user' | 'detected' | null;
  rate: RateSnapshot;
}

/**
 * Lines that still came from the board at its rate, so they keep the line count honest for the
 * rate estimate even though they make no row. Text (headers, debug prints) and blank lines do not.
 */
const COUNTS_AS_READING: Record<LineOutcome, boolean> = {
  row: true, held: true, nan: true, width: true, garbage: true, 'too-long': true,
  header: false, blank: false, text: false, partial: false,
};

/**
 * Mode 1 of the serial source: "print values over serial" sketches. Feed it chunks as they come
 * off the port; it frames lines, parses them into rows of exact values, estimates the sampling rate, and
 * hands listeners one batch per chunk. Nothing a board sends can make it throw.
 */
export class NumericLineReader {
  readonly #clock: Clock;
  readonly #splitter: LineSplitter;
  readonly #parser: NumericLineParser;
  readonly #rate: RateEstimator;
  readonly #batcher: RowBatcher;
  readonly #listeners = new Set<(batch: RowBatch) => void>();
  readonly #maxAxes: number;
  #overrides: LineOverrides = {};
  #readings = 0;
  #listenerError: unknown = undefined;

  constructor(options: NumericLineReaderOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#maxAxes = options.maxAxes ?? 128;
    this.#splitter = new LineSplitter(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes });
    this.#parser = new NumericLineParser({ maxAxes: this.#maxAxes, confirmLines: options.confirmLines ?? 3 });
    this.#rate = new RateEstimator(options.rate);
    this.#batcher = new RowBatcher((batch) => this.#emit(batch), Math.max(options.batchValues ?? DEFAULT_BATCH_VALUES, this.#maxAxes));
    if (options.overrides) this.setOverrides(options.overrides);
  }

  /** A chunk off the port. `arrivalMs` defaults to the clock; pass the time the chunk was read if you have it. */
  push(chunk: Buffer, arrivalMs: number = this.#clock.now()): void {
    this.#batcher.arrivalMs = arrivalMs;
    this.#readings = 0;
    this.#splitter.push(chunk, this.#sink);
    if (this.#readings > 0) this.#rate.add(arrivalMs, this.#readings);
    this.#batcher.flush();
    this.#rethrow();
  }

  /** The port closed: a line left without its end is counted as partial. */
  end(): void {
    this.#splitter.finish(this.#sink);
    this.#batcher.flush();
    this.#rethrow();
  }

  /** The port was reopened (maybe another sketch): re-learn width, names and rate; counters keep running. */
  reopen(): void {
    this.end();
    this.#parser.reset();
    this.#rate.reset();
  }

  setOverrides(overrides: LineOverrides): void {
    const hz = overrides.frequencyHz;
    if (hz !== undefined && hz !== null && !(Number.isFinite(hz) && hz > 0 && hz <= 1e6)) {
      throw new CoreError('InvalidArguments', `frequency must be between 0 and 1,000,000 Hz, not ${hz}`);
    }
    const axes = overrides.axes;
    if (axes && (axes.length > this.#maxAxes || axes.some((a) => (a.name?.length ?? 0) > 64 || (a.units?.length ?? 0) > 32))) {
      throw new CoreError('InvalidArguments', `at most ${this.#maxAxes} axes, names up to 64 characters and units up to 32`);
    }
    this.#overrides = { frequencyHz: hz ?? null, axes: axes ? axes.map((a) => ({ ...a })) : null };
  }

  /** Batches of rows (and of rejections). The batch's array is reused: copy what you keep. */
  onBatch(listener: (batch: RowBatch) => void, signal?: AbortSignal): () => void {
    const off = () => void this.#listeners.delete(listener);
    if (signal?.aborted) return off;
    this.#listeners.add(listener);
    signal?.addEventListener('abort', off, { once: true });
    return off;
  }

  /** Readings found lost before reading number `line` (as RowBatch.lines counts them). */
  lostBefore(line: number): number {
    return this.#rate.lostBefore(line);
  }

  /** Readings whose losses are settled (see RateEstimator.judgedThrough). */
  judgedThrough(): number {
    return this.#rate.judgedThrough();
  }

  /** The given rate, or the current estimate without a refit (cheap for every batch); null until known. */
  currentRate(): { frequencyHz: number; relativeError: number } | null {
    const given = this.#overrides.frequencyHz ?? null;
    return given !== null ? { frequencyHz: given, relativeError: 0 } : this.#rate.current();
  }

  stats(): LineReaderStats {
    const p = this.#parser.stats;
    const rate = this.#rate.snapshot();
    const userHz = this.#overrides.frequencyHz ?? null;
    // Rejected data lines count toward the rate (they left the board on time), but a rate made
    // mostly of them describes noise (a wrong baud rate), not the board: then say nothing.
    const b = p.badLines;
    const detected = p.goodLines > b.nan + b.width + b.garbage + b['too-long'] ? rate.frequencyHz : null;
    const axes = Array.from({ length: p.width ?? 0 }, (_, i) => ({
      name: this.#overrides.axes?.[i]?.name ?? p.names?.[i] ?? `value${i + 1}`,
      units: this.#overrides.axes?.[i]?.units ?? '',
    }));
    return {
      width: p.width,
      layout: p.layout,
      axes,
      frequencyHz: userHz ?? detected,
      frequencySource: userHz !== null ? 'user' : detected !== null ? 'detected' : null,
      rate,
      goodLines: p.goodLines,
      headerLines: p.headerLines,
      blankLines: p.blankLines,
      badLines: p.badLines,
      badTotal: p.badTotal,
      lastBadLine: p.lastBadLine,
    };
  }

  /** The splitter's sink: one object, created once, so the per-line calls stay monomorphic. */
  readonly #sink: LineSink = {
    line: (buf, start, end) => this.#count(this.#parser.parse(buf, start, end, this.#batcher)),
    firstLine: (buf, start, end) => this.#count(this.#parser.firstLine(buf, start, end, this.#batcher)),
    tooLong: (buf, start, end) => this.#count(this.#parser.reject('too-long', buf, start, end, this.#batcher)),
    unterminated: (buf, start, end) => void this.#parser.reject('partial', buf, start, end, this.#batcher),
  };

  #count(outcome: LineOutcome): void {
    if (COUNTS_AS_READING[outcome]) {
      this.#readings++;
      this.#batcher.lines++;
    }
  }

  /** A throwing listener must not leave a chunk half-parsed: finish the chunk, then rethrow. */
  #emit(batch: RowBatch): void {
    for (const l of [...this.#listeners]) {
      try {
        l(batch);
      } catch (err) {
        this.#listenerError ??= err;
      }
    }
  }

  #rethrow(): void {
    const err = this.#listenerError;
    if (err === undefined) return;
    this.#listenerError = undefined;
    throw err;
  }
}
