import type { Classification } from '../contract/contract.js';
import { CoreError } from '../errors.js';
import type { Logger } from '../log.js';
import type { SampleJob } from './worker-protocol.js';
import type { ModelRegistry } from './model-registry.js';
import { ModelRunner, type SpawnModelWorker, type WindowResult } from './model-runner.js';
import type { ModelEntry } from '../contract/model-schema.js';

/** What a caller hands over with a window and gets back with its result. */
export interface Offered<M> {
  values: Float32Array;
  meta: M;
}

export interface SessionEvents<M> {
  result(r: WindowResult, meta: M): void;
  /** The runtime died and was started again (once); the window in hand was lost. */
  restarted?(reason: string): void;
  /** It died again: the model is marked failed and this session takes no more windows. */
  failed?(reason: string): void;
}

/**
 * One added model running for one consumer (a live source, a sample being classified).
 * Live windows are handed over with back-pressure: one in the worker and one waiting (a window's
 * worth of slices in continuous mode); a newer window replaces the oldest waiting, which is counted
 * as skipped, so a model slower than the stream costs windows, never memory. A runtime that dies is started once more; a second death marks the
 * model failed with the reason.
 */
export class ModelSession<M = unknown> {
  #runner: ModelRunner;
  #waiting: Array<Offered<M> & { seq: number }> = [];
  #busy = false;
  #restarts = 0;
  #failed: string | null = null;
  #closed = false;
  #seq = 0;
  skipped = 0;
  lost = 0;
  classified = 0;
  #events: SessionEvents<M> | null = null;

  private constructor(
    readonly entry: ModelEntry,
    private readonly jsPath: string,
    runner: ModelRunner,
    private readonly registry: ModelRegistry,
    private readonly spawn: SpawnModelWorker,
    private readonly log: Logger,
  ) {
    this.#runner = runner;
    this.#watch(runner);
  }

  static async open<M>(registry: ModelRegistry, name: string, spawn: SpawnModelWorker, log: Logger, signal?: AbortSignal): Promise<ModelSession<M>> {
    const { entry, jsPath } = await registry.ready(name);
    const runner = await ModelRunner.start(jsPath, spawn, undefined, signal);
    if (entry.status === 'failed') await registry.clearFailed(name);
    return new ModelSession<M>(entry, jsPath, runner, registry, spawn, log);
  }

  get failed(): string | null {
    return this.#failed;
  }

  /** Where live results go (set once, before the first offer). */
  on(events: SessionEvents<M>): void {
    this.#events = events;
  }

  /** Live: hand a window over without waiting. `continuous`: one slice of a continuous-mode build. */
  offer(values: Float32Array, meta: M): void {
    if (this.#failed || this.#closed) return;
    // A window dropped below still used its sequence number: the worker sees the hole.
    const seq = this.#seq++;
    if (!this.#busy) return void this.#run({ values, meta }, seq);
    if (this.#waiting.length >= this.#room(values)) {
      this.#waiting.shift();
      this.skipped++;
    }
    this.#waiting.push({ values, meta, seq });
  }

  /**
   * How many may wait. Whole windows: one (a newer one replaces it). Continuous slices: a window's
   * worth, because a skipped slice costs a whole window of answers (the module must hear every
   * slice), so a burst of slices from the source (its event loop stalled, a capture delivering
   * late) must not cost any; only a model that stays behind loses slices, the oldest first.
   */
  #room(values: Float32Array): number {
    const d = this.entry.description;
    if (!d.continuous || values.length !== d.sliceFloats || !d.floatsPerWindow) return 1;
    return Math.max(1, Math.round(d.floatsPerWindow / d.sliceFloats));
  }

  /** Offline: every window in turn (the caller awaits each); a death restarts once and retries the window. */
  async classify(values: Float32Array, o: { continuous?: boolean } = {}): Promise<WindowResult> {
    for (;;) {
      if (this.#failed) throw new Error(this.#failed);
      const copy = values.slice(); // transferred to the worker; the original may be needed again
      try {
        const r = await this.#runner.classify(copy, { continuous: o.continuous ?? false, seq: this.#seq++ });
        this.classified++;
        return r;
      } catch (err) {
        await this.#restartOrFail((err as Error).message);
      }
    }
  }

  /**
   * Offline: `count` whole windows end to end in `values`, classified in order in one round trip
   * (a round trip a window left the workers idle, waiting for the next window). A death restarts
   * once and retries the batch. `values` is not touched (the runner copies it).
   */
  async classifyBatch(values: Float32Array, windowFloats: number, count: number): Promise<WindowResult[]> {
    for (;;) {
      if (this.#failed) throw new Error(this.#failed);
      try {
        const r = await this.#runner.classifyBatch(values, windowFloats, count);
        this.classified += r.length;
        this.#seq += r.length;
        return r;
      } catch (err) {
        await this.#restartOrFail((err as Error).message);
      }
    }
  }

  /**
   * Offline: a whole sample read, decoded and classified in the worker (SampleJob). A sample the
   * worker refuses rejects with its CoreError; a death restarts once and retries the sample.
   */
  async classifySample(job: SampleJob): Promise<Classification> {
    for (;;) {
      if (this.#failed) throw new Error(this.#failed);
      try {
        const c = await this.#runner.classifySample(job);
        const windows = c.blocks[0]?.windows.length ?? 0;
        this.classified += windows;
        this.#seq += windows;
        return c;
      } catch (err) {
        if (err instanceof CoreError) throw err;
        await this.#restartOrFail((err as Error).message);
      }
    }
  }

  async memory(): Promise<{ heapBytes: number; rssBytes: number }> {
    return this.#runner.memory();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#waiting = [];
    await this.#runner.stop();
  }

  async #run(w: Offered<M>, seq: number): Promise<void> {
    this.#busy = true;
    const continuous = this.entry.description.continuous && w.values.length === this.entry.description.sliceFloats;
    try {
      const r = await this.#runner.classify(w.values, { continuous, seq });
      this.classified++;
      if (!this.#closed) this.#events?.result(r, w.meta);
    } catch (err) {
      if (this.#closed) return;
      this.lost++;
      await this.#restartOrFail((err as Error).message);
    } finally {
      this.#busy = false;
    }
    const next = this.#waiting.shift();
    if (next && !this.#closed && !this.#failed) void this.#run(next, next.seq);
  }

  #watch(runner: ModelRunner): void {
    runner.onDeath((err) => {
      // A death between windows (the glue's own handlers threw) is noticed here; one inside a call
      // rejects that call, which restarts from there.
      if (!this.#busy && !this.#closed) void this.#restartOrFail(err.message);
    });
  }

  #restarting: Promise<void> | null = null;

  async #restartOrFail(reason: string): Promise<void> {
    if (this.#restarting) return this.#restarting;
    if (this.#failed) return;
    this.#restarting = (async () => {
      if (this.#restarts >= 1) {
        this.#failed = `The model "${this.entry.name}" stopped twice: ${reason}. It was marked failed; check the export, or remove it and add it again.`;
        this.log.error('model failed', { name: this.entry.name, reason });
        await this.registry.markFailed(this.entry.name, reason);
        this.#events?.failed?.(this.#failed);
        return;
      }
      this.#restarts++;
      this.log.warn('model restarted', { name: this.entry.name, reason });
      try {
        this.#runner = await ModelRunner.start(this.jsPath, this.spawn);
        this.#watch(this.#runner);
        this.#events?.restarted?.(reason);
      } catch (err) {
        this.#failed = `The model "${this.entry.name}" stopped (${reason}) and could not be started again: ${(err as Error).message}`;
        await this.registry.markFailed(this.entry.name, reason);
        this.#events?.failed?.(this.#failed);
      }
    })();
    try {
      await this.#restarting;
    } finally {
      this.#restarting = null;
    }
  }
}
