import type { JobProgress } from './contract/contract.js';
import { CoreError } from './errors.js';

export type JobOp = JobProgress['op'];

export interface JobContext {
  signal: AbortSignal;
  /** Throttled: call it as often as you like. */
  progress(done: number, total: number): void;
}

/** Progress events per job and second, at most: enough for a smooth bar, few enough for the wire. */
const EVENTS_PER_SECOND = 10;

/**
 * Long work the user can watch and cancel (splits, exports, bulk classify): the caller picks the
 * job id, so it can listen for progress and cancel before the call that started the job has
 * answered. In core/, not review/: samples' bulk actions run as jobs too, and samples sits below review.
 */
export class Jobs {
  readonly #running = new Map<string, AbortController>();

  constructor(private readonly emit: (p: JobProgress) => void) {}

  async run<T>(jobId: string, op: JobOp, work: (job: JobContext) => Promise<T>): Promise<T> {
    if (this.#running.has(jobId)) throw new CoreError('Busy', `A job with id ${jobId} is already running.`);
    const ctrl = new AbortController();
    this.#running.set(jobId, ctrl);
    let last = { done: 0, total: 0 };
    let sentAt = 0;
    const send = (state: JobProgress['state']) => this.emit({ jobId, op, ...last, state });
    send('running');
    try {
      const result = await work({
        signal: ctrl.signal,
        progress: (done, total) => {
          last = { done, total };
          const now = performance.now();
          if (now - sentAt >= 1000 / EVENTS_PER_SECOND) {
            sentAt = now;
            send('running');
          }
        },
      });
      send('done');
      return result;
    } catch (err) {
      send(ctrl.signal.aborted ? 'cancelled' : 'failed');
      throw err;
    } finally {
      this.#running.delete(jobId);
    }
  }

  /** False when no such job runs (it finished, or never started). */
  cancel(jobId: string): boolean {
    const ctrl = this.#running.get(jobId);
    ctrl?.abort();
    return ctrl !== undefined;
  }

  cancelAll(): void {
    for (const c of this.#running.values()) c.abort();
  }
}

export function cancelled(what: string): CoreError {
  return new CoreError('Cancelled', `${what} was cancelled; nothing was kept.`);
}

export function throwIfCancelled(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted) throw cancelled(what);
}
