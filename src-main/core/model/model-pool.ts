import { availableParallelism } from 'node:os';
import type { Logger } from '../log.js';
import type { ModelEntry } from '../contract/model-schema.js';
import type { ModelRegistry } from './model-registry.js';
import type { SpawnModelWorker } from './model-runner.js';
import { ModelSession } from './model-session.js';

/** Most workers a bulk run starts, whatever the machine: each holds the model's whole memory. */
export const MAX_MODEL_WORKERS = 16;

/** One worker per core, at most four (a keyword export's worker holds tens of MB; more rarely pays off). */
export const defaultModelWorkers = (): number => Math.max(1, Math.min(availableParallelism(), 4));

/**
 * Several sessions of one added model, each in a worker thread of its own, for bulk work (model
 * test, "classify all matching"): every item runs whole on one session (a sample's windows in
 * order, on one module), the next item goes to whichever session is free, and the results come
 * back in the order of the items. One session alone is what a single-sample classify used.
 */
export class ModelPool {
  private constructor(readonly sessions: ModelSession[]) {}

  /** Starts `workers` sessions: the first alone (its errors say what is wrong with the model once), the rest together. */
  static async open(registry: ModelRegistry, name: string, spawn: SpawnModelWorker, log: Logger, workers: number): Promise<ModelPool> {
    const first = await ModelSession.open(registry, name, spawn, log);
    const rest = await Promise.allSettled(Array.from({ length: Math.max(0, workers - 1) }, () => ModelSession.open(registry, name, spawn, log)));
    const sessions = [first, ...rest.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []))];
    const failed = rest.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) {
      await Promise.all(sessions.map((s) => s.close()));
      throw failed.reason;
    }
    return new ModelPool(sessions);
  }

  get entry(): ModelEntry {
    return this.sessions[0]!.entry;
  }

  /** Windows classified by all its workers so far. */
  get classified(): number {
    return this.sessions.reduce((n, s) => n + s.classified, 0);
  }

  /**
   * Runs `work` on every item, each on one free session; resolves with the results in the items'
   * order. `work` decides what an item's failure is (a result saying so, or a throw that ends the
   * run): once one throws, no new item starts, the running ones finish, and the first error is thrown.
   */
  async map<T, R>(items: readonly T[], work: (session: ModelSession, item: T, index: number) => Promise<R>): Promise<R[]> {
    const out = new Array<R>(items.length);
    let next = 0;
    let error: { err: unknown } | null = null;
    await Promise.all(this.sessions.map(async (session) => {
      while (error === null && next < items.length) {
        const i = next++;
        try {
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
    await Promise.all(this.sessions.map((s) => s.close()));
  }
}
