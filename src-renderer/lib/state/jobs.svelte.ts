import type { JobProgress } from '../../../src-main/core/contract/contract.js';
import type { Api } from '../api/client.js';
import { ApiError } from '../api/client.js';

let counter = 0;

/**
 * One long job at a time (a split, an export) with its progress and a Cancel: the job id is
 * chosen here, so progress events are matched and Cancel works before the call has answered.
 */
export class JobRunner {
  progress = $state.raw<JobProgress | null>(null);
  running = $state(false);
  /** The core's words when the last run was cancelled (what was kept, what was not); null otherwise. */
  cancelled = $state<string | null>(null);
  #jobId: string | null = null;

  constructor(private readonly api: Api, readonly op: JobProgress['op']) {}

  /** Resolves with the job's result, or null when the user cancelled it; other failures throw. */
  async run<T>(start: (jobId: string) => Promise<T>): Promise<T | null> {
    const jobId = `${this.op}-${Date.now().toString(36)}-${++counter}`;
    this.#jobId = jobId;
    this.running = true;
    this.cancelled = null;
    this.progress = { jobId, op: this.op, done: 0, total: 0, state: 'running' };
    const off = this.api.on('samples.progress', (p) => {
      if (p.jobId === jobId) this.progress = p;
    });
    try {
      return await start(jobId);
    } catch (err) {
      if (err instanceof ApiError && err.code === 'Cancelled') {
        this.cancelled = err.message;
        return null;
      }
      throw err;
    } finally {
      off();
      this.running = false;
      this.#jobId = null;
    }
  }

  cancel(): void {
    if (this.#jobId) void this.api.call('samples.cancel', { jobId: this.#jobId }).catch(() => {});
  }
}
