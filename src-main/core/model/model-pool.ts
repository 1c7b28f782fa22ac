import { availableParallelism } from 'node:os';
import type { Logger } from '../log.js';
import type { ModelEntry } from '../contract/model-schema.js';
import type { ModelRegistry } from './model-registry.js';
import type { SpawnModelWorker } from './model-runner.js';
import { ModelSession } from './model-session.js';

/** Most workers a bulk run starts, whatever the machine: each holds the model's whole memory. */
export const MAX_MODEL_WORKERS = 16;

/** One worker per core, at most four (a keyword export's worker holds tens of MB; more rarely pays off). */
const LANES_PER_SESSION = 2;

export const defaultModelWorkers = (): number => Math.max(1, Math.min(availableParallelism(), 4));

/**
 * Up to `workers` sessions of one added model, each in a worker thread of its own, for bulk work
 * (model test): every item runs whole on one session (a sample's windows in order, on one module),
 * the next item goes to whichever lane is free (two a session), and the results come back in the
 * order of the items. Workers start when there is work for them, no more than items: a test whose results
 * are all kept starts none.
 */
export class ModelPool {
  readonly sessions: ModelSession[] = [];

  private constructor(
    readonly entry: ModelEntry,
    private readonly open: (signal: AbortSignal) => Promise<ModelSession>,
    readonly workers: number,
  ) {}

  /** The model, ready to run (NotFound or Unavailable with what to do, otherwise); no worker started yet. */
  static async of(registry: ModelRegistry, name: string, spawn: SpawnModelWorker, log: Logger, workers: number): Promise<ModelPool> {
    const { entry } = await registry.ready(name);
    return ModelPool.opening(entry, (signal) => ModelSession.open(registry, name, spawn, log, signal), workers);
  }

  /** A pool that starts its sessions with `open` (the seam a unit test fills). */
  static opening(entry: ModelEntry, open: (signal: AbortSignal) => Promise<ModelSession>, workers: number): ModelPool {
    return new ModelPool(entry, open, Math.max(1, Math.min(workers, MAX_MODEL_WORKERS)));
  }

  #warming: Promise<void> | null = null;
  /** Ends the starts still under way when the pool closes (a test whose results were all kept needs none of them). */
  readonly #closing = new AbortController();
  /** Sessions that ran at least one item (a warmed pool whose items were all kept used none). */
  readonly #used = new Set<ModelSession>();

  /** How many workers did work. */
  get used(): number {
    return this.#used.size;
  }

  /**
   * Starts the workers now, before the items are known (a model test warms its pool while it opens
   * the index and looks for kept results: a worker's start, ~150 ms, then overlaps that). A
   * failure is thrown by the next map(); a pool that is closed unused just stops them.
   */
  warm(want = this.workers): void {
    if (this.#warming) return;
    this.#warming = this.#grow(Math.min(want, this.workers));
    this.#warming.catch(() => undefined); // said by map(), not as an unhandled rejection
  }

  /** Windows classified by all its workers so far. */
  get classified(): number {
    return this.sessions.reduce((n, s) => n + s.classified, 0);
  }

  /**
   * Starts sessions up to `want`, all at once (one after another, the last began a whole start
   * later); when starting fails, the first failure is thrown (it says what is wrong with the
   * model once) and the sessions that did start stay in the pool, closed with it.
   */
  async #grow(want: number): Promise<void> {
    const more = Math.max(0, want - this.sessions.length);
    const started = await Promise.allSettled(Array.from({ length: more }, () => this.open(this.#closing.signal)));
    for (const r of started) if (r.status === 'fulfilled') this.sessions.push(r.value);
    const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /**
   * Runs `work` on every item, each on one free session; resolves with the results in the items'
   * order. `work` decides what an item's failure is (a result saying so, or a throw that ends the
   * run): once one throws, no new item starts, the running ones finish, and the first error is thrown.
   */
  async map<T, R>(items: readonly T[], work: (session: ModelSession, item: T, index: number) => Promise<R>): Promise<R[]> {
    if (items.length === 0) return [];
    if (this.#warming) await this.#warming;
    await this.#grow(Math.min(this.workers, items.length));
    const out = new Array<R>(items.length);
    let next = 0;
    let error: { err: unknown } | null = null;
    // Two lanes a session: while one sample's windows are in the worker, the next is read and
    // decoded, so the worker does not wait for the disk (measured: idle nearly half the time with
    // one). Each sample still runs whole on its lane's session, its windows in order.
    const lanes = this.sessions.flatMap((s) => Array.from({ length: LANES_PER_SESSION }, () => s));
    await Promise.all(lanes.map(async (session) => {
      while (error === null && next < items.length) {
        const i = next++;
        try {
          this.#used.add(session);
          out[i] = await work(session, items[i]!, i);
        } catch (err) {
          error ??= { err };
        }
      }
    }));
    if (error) throw (error as { err: unknown }).err;
    return out;
  }

  async close(): Promise<void> {
    // Workers still starting stop now: waiting for a start nobody needs held a re-test's answer ~0.2 s.
    this.#closing.abort();
    await this.#warming?.catch(() => undefined);
    await Promise.all(this.sessions.splice(0).map((s) => s.close()));
  }
}
