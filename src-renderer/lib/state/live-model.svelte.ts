import type { LiveModelStatus, MethodInput, ModelVerdict } from '../../../src-main/core/contract/contract.js';
import type { Api } from '../api/client.js';
import { errorText } from '../format.js';
import { announceText, isUncertain, meanScores, smoothed, type LiveWindow } from '../models/live-verdicts.js';

/** The live view's counters the strip lines verdicts up with (the LiveStream). */
export interface LiveClock {
  readonly rowsReceived: number;
  /** The stream's row index past the newest row received (null before the first batch). */
  readonly streamRows: number | null;
}

/** Runs work on the next frame (requestAnimationFrame); tests pass their own. */
export type Schedule = (run: () => void) => void;

export type CatchChoice = MethodInput<'model.live.start'>['catch'];

/** Windows kept for the strip and the smoothing: at most this many, and only this much stream time. */
export const MAX_WINDOWS = 600;
export const KEEP_MS = 30_000;
/** Verdicts waiting for a frame (a hidden tab gets none): beyond this the oldest go. */
export const MAX_PENDING = 2_000;
export const MAX_SMOOTHING = 9;
export const DEFAULT_THRESHOLD = 0.6;

/** The next animation frame (typed here: tests run this file under Node, without the DOM's types). */
const g = globalThis as { requestAnimationFrame?: (cb: () => void) => number };
const frame: Schedule = (run) => void (g.requestAnimationFrame ? g.requestAnimationFrame(run) : setTimeout(run, 16));
const noClock: LiveClock = { rowsReceived: 0, streamRows: null };

/**
 * The project's model on the live view's source: the choices (model, stride, threshold, smoothing),
 * starting and stopping it in the core, and what it says. Verdict batches are only queued as they
 * arrive; once per animation frame they are turned into windows (threshold, majority of the last k),
 * the windows kept are trimmed (count and time), and the reactive fields change once. Screen readers
 * hear the shown label when it changes, never each window.
 */
export class LiveModelState {
  /** The source followed (the live view's). */
  sourceId = $state<string | null>(null);
  /** The model on it, running or as it ended (null: none since it was followed). */
  status = $state.raw<LiveModelStatus | null>(null);
  running = $derived(this.status?.state === 'running');
  /** Models running on other sources (they go on when the view shows another one). */
  elsewhere = $state.raw<LiveModelStatus[]>([]);
  /** The core's sentence when a start was refused or the model stopped by itself. */
  refusal = $state<string | null>(null);
  /** Said once when it started (axes mapped, resampled, restarted). */
  notes = $state.raw<string[]>([]);
  busy = $state(false);

  model = $state('');
  /** null: the model's default (a quarter window). */
  strideMs = $state<number | null>(null);
  threshold = $state(DEFAULT_THRESHOLD);
  /** Majority of the last k windows; 1 = off. */
  smoothing = $state(1);
  /** Catch mode asked for (it takes the capture panel's label, category and "upload when saved"). */
  catchOn = $state(false);
  /** Catch mode saves at most this many samples a minute. */
  perMinute = $state(20);

  /** Windows kept, oldest first (bounded), and the last one as shown. */
  windows = $state.raw<LiveWindow[]>([]);
  current = $state.raw<LiveWindow | null>(null);
  bars = $state.raw<Array<{ label: string; value: number }>>([]);
  /** For a polite live region: changes only when the shown label does. */
  announcement = $state('');

  /** Moves on every flush (not reactive): a drawing loop redraws when it changed. */
  version = 0;
  /** Stream time of the newest verdict and when it arrived (performance.now), for a strip without a plot. */
  lastEndMs: number | null = null;
  lastArrival = 0;

  #pending: ModelVerdict[] = [];
  #scheduled = false;
  #announced: string | null | undefined = undefined;
  #clock: LiveClock = noClock;
  readonly #others = new Map<string, LiveModelStatus>();

  constructor(
    private readonly api: Api,
    private readonly schedule: Schedule = frame,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Follows a source's model (status and verdicts); returns the cleanup for an $effect. */
  follow(sourceId: string, clock: LiveClock): () => void {
    if (this.sourceId !== sourceId) {
      this.sourceId = sourceId;
      this.status = null;
      this.refusal = null;
      this.notes = [];
      this.#resetWindows();
    }
    this.#clock = clock;
    const offs = [
      this.api.on('model.live', (s) => this.#status(s)),
      this.api.on('model.verdicts', (b) => {
        if (b.sourceId === this.sourceId) this.push(b.verdicts);
      }),
    ];
    void this.#load(sourceId);
    return () => offs.forEach((off) => off());
  }

  async #load(sourceId: string): Promise<void> {
    try {
      const all = await this.api.call('model.live.status', {});
      if (this.sourceId !== sourceId) return;
      for (const s of all) this.#status(s);
    } catch {
      // Only a head start: the events say the rest.
    }
  }

  /** Starts (or restarts with the choices as they are now) the chosen model on the followed source. */
  async start(o: { catch?: CatchChoice } = {}): Promise<boolean> {
    const sourceId = this.sourceId;
    if (!sourceId || !this.model) return false;
    this.busy = true;
    this.refusal = null;
    try {
      const s = await this.api.call('model.live.start', {
        sourceId,
        model: this.model,
        ...(this.strideMs === null ? {} : { strideMs: this.strideMs }),
        threshold: this.threshold,
        catch: o.catch ?? null,
      });
      if (this.sourceId !== sourceId) return false;
      this.#resetWindows();
      this.status = s;
      this.notes = s.notes;
      return true;
    } catch (err) {
      this.refusal = errorText(err);
      return false;
    } finally {
      this.busy = false;
    }
  }

  async stop(): Promise<void> {
    const sourceId = this.sourceId;
    if (!sourceId) return;
    this.busy = true;
    try {
      await this.api.call('model.live.stop', { sourceId });
      if (this.status?.sourceId === sourceId && this.status.state === 'running') this.status = { ...this.status, state: 'stopped' };
    } catch (err) {
      this.refusal = errorText(err);
    } finally {
      this.busy = false;
    }
  }

  /** Stops the model running on another source. */
  async stopElsewhere(sourceId: string): Promise<void> {
    try {
      await this.api.call('model.live.stop', { sourceId });
    } catch (err) {
      this.refusal = errorText(err);
    }
  }

  /** New threshold: the windows kept are judged again at once (the core's catch mode needs a restart). */
  setThreshold(x: number): void {
    if (!(x >= 0 && x <= 1)) return;
    this.threshold = x;
    this.#rejudge();
  }

  setSmoothing(k: number): void {
    this.smoothing = Math.max(1, Math.min(MAX_SMOOTHING, Math.round(k) || 1));
    this.#rejudge();
  }

  /**
   * Where a stream time (ms from the stream's first reading, rows at the model's rate) falls in the
   * live view's row count; null until known. Exact whenever the model started and whenever this
   * view began to follow the stream: both count the same rows (the core's row index).
   */
  rowOf(ms: number): number | null {
    const rate = this.status?.rateHz;
    const { rowsReceived, streamRows } = this.#clock;
    return !rate || streamRows === null ? null : rowsReceived - streamRows + (ms * rate) / 1000;
  }

  /** A batch of verdicts arrived: queued for the next frame, never drawn per verdict. */
  push(verdicts: readonly ModelVerdict[]): void {
    const last = verdicts.at(-1);
    if (!last) return;
    this.lastEndMs = last.endMs;
    this.lastArrival = this.now();
    this.#pending.push(...verdicts);
    if (this.#pending.length > MAX_PENDING) this.#pending.splice(0, this.#pending.length - MAX_PENDING);
    if (this.#scheduled) return;
    this.#scheduled = true;
    this.schedule(() => this.flush());
  }

  /** Turns the queued verdicts into windows and shows them (once per frame). */
  flush(): void {
    this.#scheduled = false;
    if (!this.#pending.length) return;
    const incoming = this.#pending.splice(0);
    const list = this.windows.slice();
    const k = this.smoothing;
    for (const v of incoming) {
      const base = { index: v.index, startMs: v.startMs, endMs: v.endMs, top: v.label, confidence: v.confidence, scores: v.scores, uncertain: isUncertain(v, this.threshold) };
      const recent = k > 1 ? [...list.slice(-(k - 1)), base] : [base];
      list.push({ ...base, ...smoothed(recent) });
    }
    const newest = list.at(-1)!.endMs;
    let drop = Math.max(0, list.length - MAX_WINDOWS);
    while (drop < list.length - 1 && list[drop]!.endMs < newest - KEEP_MS) drop++;
    if (drop) list.splice(0, drop);
    this.#show(list);
  }

  #show(list: LiveWindow[]): void {
    this.windows = list;
    this.current = list.at(-1) ?? null;
    this.bars = meanScores(this.status?.labels ?? Object.keys(this.current?.scores ?? {}), list.slice(-this.smoothing));
    if (this.current && this.current.shown !== this.#announced) {
      this.#announced = this.current.shown;
      this.announcement = announceText(this.current.shown);
    }
    this.version++;
  }

  /** Threshold or smoothing changed: every window kept is judged again, in order. */
  #rejudge(): void {
    if (!this.windows.length) return;
    const list: LiveWindow[] = [];
    for (const w of this.windows) {
      const base = { ...w, uncertain: isUncertain({ label: w.top, confidence: w.confidence }, this.threshold) };
      const recent = this.smoothing > 1 ? [...list.slice(-(this.smoothing - 1)), base] : [base];
      list.push({ ...base, ...smoothed(recent) });
    }
    this.#show(list);
  }

  #status(s: LiveModelStatus): void {
    if (s.sourceId !== this.sourceId) {
      if (s.state === 'running') this.#others.set(s.sourceId, s);
      else this.#others.delete(s.sourceId);
      this.elsewhere = [...this.#others.values()];
      return;
    }
    const fresh = !this.status || this.status.state !== 'running';
    this.status = s;
    if (s.state === 'running' && fresh) {
      // Found running (another window started it, or the view came back to it): its choices show.
      this.model = s.model;
      this.threshold = s.threshold;
      this.catchOn = s.catching !== null;
      if (!this.notes.length) this.notes = s.notes;
    } else if (s.notes.length > this.notes.length) {
      this.notes = s.notes; // e.g. "the model stopped (…) and was started again"
    }
    if (s.state === 'failed' && s.error) this.refusal = s.error;
  }

  #resetWindows(): void {
    this.#pending = [];
    this.windows = [];
    this.current = null;
    this.bars = [];
    this.#announced = undefined;
    this.lastEndMs = null;
    this.version++;
  }
}
