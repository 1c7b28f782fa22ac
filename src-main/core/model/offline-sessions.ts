import type { Logger } from '../log.js';
import type { ModelRegistry } from './model-registry.js';
import type { SpawnModelWorker } from './model-runner.js';
import { ModelSession } from './model-session.js';
import { SessionLender } from './session-lender.js';

const IDLE_MS = 5000;

/**
 * Workers per model for samples classified offline (a bulk run, takes as they are saved), closed
 * once none has been used for a few seconds: starting a worker per sample cost more than
 * classifying a short sample. Calls made at once run at once, each on a session of its own.
 */
export class OfflineSessions {
  readonly #byModel = new Map<string, { lender: SessionLender; timer: NodeJS.Timeout | null }>();

  constructor(private readonly d: { registry: ModelRegistry; spawn: SpawnModelWorker; log: Logger }) {}

  async use<T>(model: string, work: (session: ModelSession) => Promise<T>): Promise<T> {
    let kept = this.#byModel.get(model);
    if (!kept) {
      kept = { lender: new SessionLender(() => ModelSession.open(this.d.registry, model, this.d.spawn, this.d.log)), timer: null };
      this.#byModel.set(model, kept);
    }
    const k = kept;
    if (k.timer) clearTimeout(k.timer);
    k.timer = null;
    try {
      return await k.lender.use(work);
    } finally {
      if (k.lender.busy === 0 && this.#byModel.get(model) === k) k.timer = setTimeout(() => void this.closeModel(model), IDLE_MS);
    }
  }

  /** Closes this model's sessions now (it is removed, or its description changed); the next use opens new ones. */
  async closeModel(model: string): Promise<void> {
    const kept = this.#byModel.get(model);
    if (!kept) return;
    this.#byModel.delete(model);
    if (kept.timer) clearTimeout(kept.timer);
    await kept.lender.close();
  }

  async close(): Promise<void> {
    for (const model of [...this.#byModel.keys()]) await this.closeModel(model);
  }
}
