import { DEMO_SOURCE_ID, type StreamInfo, type StreamStats } from '../contract/contract.js';
import type { Clock } from '../clock.js';
import { CoreError, toWireError } from '../errors.js';
import type { EventBus } from '../event-bus.js';
import { RowBatcher } from './row-batcher.js';
import { SIMULATED_IMU_AXES, simulatedImuRow } from './simulated-imu.js';

/** The UI never needs more than one update per display frame. */
export const MAX_BATCHES_PER_SECOND = 60;
const TICK_MS = 1000 / MAX_BATCHES_PER_SECOND;
export const DEFAULT_DEMO_RATE_HZ = 100;

/**
 * When rows arrived, from a source that measures its rate from that (a "print values over
 * serial" board): the arrival time (ms, monotonic) of the chunk that completed them, and the
 * lines the source had counted toward its rate estimate by then (see RowBatch.lines).
 */
export interface RowTiming {
  readonly arrivalMs: number;
  readonly lines: number;
}

/**
 * What a source that counts its readings knows about them (a serial lines board): a take uses it
 * to hold exactly its length and to count the readings lost between its own first and last.
 */
export interface SourceReading {
  /** The given rate, or the estimate as it stands with its ~95 % relative interval; null until known. */
  rate(): { frequencyHz: number; relativeError: number } | null;
  /** Readings found lost before reading number `line` (RowTiming.lines counts readings). */
  lostBefore(line: number): number;
  /** Readings whose losses are settled (later arrivals show a loss): a take's count is final from here. */
  judgedThrough(): number;
}

/** What a source hands its rows and news to. Rows keep full precision for recorders. */
export interface StreamSink {
  info(info: StreamInfo): void;
  /** `timing` from a source that counts its readings; its arrival times matter only when RunningSource.measuresRate. */
  rows(values: ArrayLike<number>, rows: number, timing?: RowTiming): void;
  stats(stats: Omit<StreamStats, 'sourceId'>): void;
  /** The source stopped by itself and will not come back (failed). */
  ended(error: unknown): void;
  /** The source went away (unplugged) and is trying to come back; recordings end here. */
  interrupted(error: unknown): void;
  /** It is back: rows flow again. */
  resumed(): void;
}

export interface RunningSource {
  info: StreamInfo;
  /** false: rows go to recorders only, never to the UI (a microphone sends the UI levels instead). */
  uiRows?: boolean;
  /**
   * true: info.rateHz is measured from when rows arrive (nobody gave it), and rows come with
   * their RowTiming, so a recording can measure the rate again from its own rows.
   */
  measuresRate?: boolean;
  /** A source that counts its readings (rows then come with RowTiming). */
  reading?: SourceReading;
  /**
   * A source that knows its losses exactly (a Nordic board numbers its samples): the gaps after
   * reading `first` up to `last` (RowTiming.lines numbers), so a recording can say where it lost what.
   */
  gapsBetween?(first: number, last: number): Array<{ reading: number; seq: number; count: number; device: number }>;
  stop(): Promise<void> | void;
}

/** `signal` aborts a start in progress (the user stopped it, e.g. to switch the port's mode). */
export type SourceFactory = (sourceId: string, opts: { rateHz?: number | undefined; signal: AbortSignal }, sink: StreamSink) => Promise<RunningSource>;

/**
 * `at`: the stream's row index of the first of these rows, counted from the source's first reading
 * (rows read while it started included), so a tap added late still knows where its rows lie on the
 * stream's time axis (row index × interval).
 */
export type RowTap = (values: ArrayLike<number>, rows: number, info: StreamInfo, timing: RowTiming | undefined, at: number) => void;
export type InterruptTap = (error: unknown) => void;

interface Running {
  source: RunningSource;
  info: StreamInfo;
  batcher: RowBatcher;
  /** Rows handed out since the source's first reading: the next row's index on the stream's axis. */
  rows: number;
  seq: number;
  taps: Set<RowTap>;
  interruptTaps: Set<InterruptTap>;
  cancelTick: () => void;
}

/**
 * Owns every live stream. Sources push rows whenever they have them; the hub hands the UI one
 * batch per tick (≤ 60/s) and recorders every row at full precision through taps.
 */
export class StreamHub {
  readonly #running = new Map<string, Running>();
  readonly #starting = new Map<string, { promise: Promise<StreamInfo>; abort: AbortController }>();
  readonly #factories = new Map<string, SourceFactory>();

  constructor(
    private readonly bus: EventBus,
    private readonly clock: Clock,
  ) {
    this.register('simulated:', (id, o, sink) => this.#simulated(id, o.rateHz ?? DEFAULT_DEMO_RATE_HZ, sink));
  }

  /** Sources whose id starts with `prefix` (e.g. "serial:") are started by `factory`. */
  register(prefix: string, factory: SourceFactory): void {
    this.#factories.set(prefix, factory);
  }

  isStreaming(sourceId: string): boolean {
    return this.#running.has(sourceId);
  }

  info(sourceId: string): StreamInfo | undefined {
    return this.#running.get(sourceId)?.info;
  }

  /** What the running source knows of its readings, if it counts them (see SourceReading). */
  reading(sourceId: string): SourceReading | undefined {
    return this.#running.get(sourceId)?.source.reading;
  }

  /** The source's known gaps between two of its readings; null when it cannot know them (see RunningSource.gapsBetween). */
  gapsBetween(sourceId: string, first: number, last: number): Array<{ reading: number; seq: number; count: number; device: number }> | null {
    const s = this.#running.get(sourceId)?.source;
    return s?.gapsBetween ? s.gapsBetween(first, last) : null;
  }

  /** The running source measures its rate from when rows arrive (see RunningSource.measuresRate). */
  measuresRate(sourceId: string): boolean {
    return this.#running.get(sourceId)?.source.measuresRate === true;
  }

  async start(sourceId: string, rateHz?: number): Promise<StreamInfo> {
    const existing = this.#running.get(sourceId);
    if (existing && (rateHz === undefined || existing.info.rateHz === rateHz || !existing.info.simulated)) return existing.info;
    if (existing) await this.stop(sourceId); // a new rate restarts the simulation
    // Two windows asking at once share one start instead of opening the port twice.
    const pending = this.#starting.get(sourceId);
    if (pending) return pending.promise;
    const abort = new AbortController();
    const promise = this.#start(sourceId, rateHz, abort.signal).finally(() => this.#starting.delete(sourceId));
    this.#starting.set(sourceId, { promise, abort });
    return promise;
  }

  /** Opening, detecting: not streaming yet, but the device is taken. */
  isStarting(sourceId: string): boolean {
    return this.#starting.has(sourceId);
  }

  async #start(sourceId: string, rateHz: number | undefined, signal: AbortSignal): Promise<StreamInfo> {
    const factory = [...this.#factories].find(([prefix]) => sourceId.startsWith(prefix))?.[1];
    if (!factory) throw new CoreError('NotFound', `No source "${sourceId}". Pick one from the device list.`);
    let run: Running | undefined;
    const early: Array<() => void> = [];
    const sink: StreamSink = {
      info: (info) => {
        if (!run) return;
        // The new batcher goes on counting where the stream is, so a batch's firstIndex stays its row index.
        if (info.axes.length !== run.info.axes.length) run.batcher = new RowBatcher(info.axes.length, 256, run.rows);
        run.info = info;
        this.bus.emit('stream.info', info);
      },
      rows: (values, rows, timing) => {
        if (!run) {
          // Rows before the source finished starting (e.g. while it detects its columns). Sources
          // reuse their arrays, so keep a copy, not a view that the next chunk overwrites.
          const copy = Float64Array.from(values as ArrayLike<number>);
          return void early.push(() => sink.rows(copy, rows, timing));
        }
        if (run.source.uiRows !== false) run.batcher.push(values, rows);
        const at = run.rows;
        run.rows += rows;
        for (const tap of run.taps) tap(values, rows, run.info, timing, at);
      },
      stats: (stats) => this.bus.emit('stream.stats', { sourceId, ...stats }),
      interrupted: (error) => {
        if (!run) return;
        this.#flush(sourceId, run);
        for (const t of [...run.interruptTaps]) t(error);
        this.bus.emit('stream.state', { sourceId, state: 'error', error: toWireError(error) });
      },
      resumed: () => {
        if (run) this.bus.emit('stream.state', { sourceId, state: 'started' });
      },
      ended: (error) => {
        if (!run || this.#running.get(sourceId) !== run) return;
        this.#flush(sourceId, run);
        run.cancelTick();
        this.#running.delete(sourceId);
        for (const t of [...run.interruptTaps]) t(error);
        this.bus.emit('stream.state', { sourceId, state: 'error', error: toWireError(error) });
      },
    };
    const source = await factory(sourceId, { rateHz, signal }, sink);
    if (signal.aborted) {
      // Stopped while the source finished starting: it must not stay open behind the user's back.
      await source.stop();
      throw new CoreError('Busy', `Starting ${sourceId} was cancelled.`);
    }
    run = { source, info: source.info, batcher: new RowBatcher(source.info.axes.length), rows: 0, seq: 0, taps: new Set(), interruptTaps: new Set(), cancelTick: () => {} };
    const r = run;
    r.cancelTick = this.clock.every(TICK_MS, () => this.#flush(sourceId, r));
    this.#running.set(sourceId, r);
    for (const replay of early) replay();
    this.bus.emit('stream.state', { sourceId, state: 'started' });
    return r.info;
  }

  /** Every row of `sourceId` from now on, at full precision (recorders), and word if it drops out. */
  tap(sourceId: string, tap: RowTap, onInterrupt?: InterruptTap): () => void {
    const r = this.#running.get(sourceId);
    if (!r) throw new CoreError('NotFound', `"${sourceId}" is not streaming; start it first.`);
    r.taps.add(tap);
    if (onInterrupt) r.interruptTaps.add(onInterrupt);
    return () => {
      r.taps.delete(tap);
      if (onInterrupt) r.interruptTaps.delete(onInterrupt);
    };
  }

  async stop(sourceId: string): Promise<boolean> {
    const starting = this.#starting.get(sourceId);
    if (starting) {
      starting.abort.abort();
      await starting.promise.catch(() => {}); // its caller hears how it ended; here it only has to be over
      return true;
    }
    const r = this.#running.get(sourceId);
    if (!r) return false;
    this.#running.delete(sourceId);
    r.cancelTick();
    await r.source.stop();
    this.#flush(sourceId, r);
    this.bus.emit('stream.state', { sourceId, state: 'stopped' });
    return true;
  }

  async stopAll(): Promise<void> {
    for (const id of [...this.#running.keys()]) await this.stop(id);
  }

  #flush(sourceId: string, r: Running): void {
    const b = r.batcher.take();
    if (!b) return;
    this.bus.emit('stream.batch', { sourceId, seq: r.seq++, firstIndex: b.firstIndex, axisCount: r.batcher.axisCount, values: b.values, rateHz: r.info.rateHz });
  }

  /** The built-in simulated accelerometer: rows become due with time, like a real sensor. */
  async #simulated(sourceId: string, rateHz: number, sink: StreamSink): Promise<RunningSource> {
    if (sourceId !== DEMO_SOURCE_ID) throw new CoreError('NotFound', `No simulated source "${sourceId}".`);
    const info: StreamInfo = { sourceId, axes: SIMULATED_IMU_AXES, rateHz, simulated: true };
    const t0 = this.clock.now();
    let produced = 0;
    const cancel = this.clock.every(TICK_MS, () => {
      const due = Math.floor(((this.clock.now() - t0) * rateHz) / 1000);
      const rows = due - produced;
      if (rows <= 0) return;
      const values = new Float32Array(rows * 3);
      for (let r = 0; r < rows; r++) simulatedImuRow(produced + r, rateHz, values, r * 3);
      produced = due;
      sink.rows(values, rows);
    });
    return { info, stop: cancel };
  }
}
