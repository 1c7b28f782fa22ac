import type { ModelSession } from './model-session.js';

/**
 * Sessions of one model lent out for a whole sample each (its windows in order, on one module):
 * a free one if there is one, else a new one, so as many run at once as callers ask for at once
 * (the bulk action asks for one per worker it wants; takes, one after another, use one). Kept
 * until closed: starting a worker per sample cost more than classifying a short sample. A session
 * that failed (its model stopped twice) is dropped; the next sample gets a fresh one.
 */
export class SessionLender {
  readonly #free: ModelSession[] = [];
  readonly #lent = new Set<ModelSession>();
  #closed = false;

  constructor(private readonly open: () => Promise<ModelSession>) {}

  /** Sessions lent out right now. */
  get busy(): number {
    return this.#lent.size;
  }

  async use<T>(work: (session: ModelSession) => Promise<T>): Promise<T> {
    if (this.#closed) throw new Error('the model\'s sessions were closed');
    const session = this.#free.pop() ?? (await this.open());
    this.#lent.add(session);
    try {
      return await work(session);
    } finally {
      this.#lent.delete(session);
      if (this.#closed || session.failed) await session.close();
      else this.#free.push(session);
    }
  }

  /** Closes the free sessions now and each lent one when it comes back. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#free.splice(0).map((s) => s.close()));
  }
}
