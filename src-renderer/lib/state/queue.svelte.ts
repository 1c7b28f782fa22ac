import type { QueueStatus } from '../../../src-main/core/contract/contract.js';
import { MAX_IDS } from '../../../src-main/core/contract/limits.js';
import type { Api } from '../api/client.js';
import { answer } from '../api/answer.js';
import { followEvent } from '../api/reconnect.js';
import { PendingUploadsState } from './pending-uploads.svelte.js';

export interface QueueProgress {
  /** Finished since the current round of uploads began (uploaded, or given up on). */
  done: number;
  problems: number;
  remaining: number;
  /** 0…1; 1 when nothing is waiting. */
  fraction: number;
}

const waiting = (s: QueueStatus) => s.counts.queued + s.counts.uploading;

/**
 * The upload queue as the core reports it. The progress bar measures the current round (from the
 * moment something was queued while nothing was), not all-time totals, which would sit near 100 %.
 */
export class QueueState {
  status = $state.raw<QueueStatus | null>(null);
  error = $state<string | null>(null);
  #baseline = $state.raw<{ uploaded: number; problems: number } | null>(null);

  progress = $derived.by((): QueueProgress | null => {
    const s = this.status;
    const b = this.#baseline;
    if (!s || !b) return null;
    const done = Math.max(0, s.counts.uploaded - b.uploaded);
    const problems = Math.max(0, s.counts.failed + s.counts.rejected - b.problems);
    const remaining = waiting(s);
    const total = done + problems + remaining;
    const fraction = total === 0 ? (s.counts.uploaded > 0 ? 1 : 0) : (done + problems) / total;
    return { done, problems, remaining, fraction };
  });

  /** What waits to be sent, listed by the panel while it is shown (it subscribes). */
  readonly waiting: PendingUploadsState;

  constructor(private readonly api: Api) {
    this.waiting = new PendingUploadsState(api);
  }

  async refresh(): Promise<void> {
    const r = await answer(() => this.api.call('queue.status', {}));
    if (r.ok) this.#accept(r.value);
    this.error = r.error;
  }

  subscribe(): () => void {
    return followEvent(this.api, 'queue.changed', (s) => this.#accept(s), () => void this.refresh());
  }

  async pause(): Promise<void> {
    this.#accept(await this.api.call('queue.pause', {}));
  }

  async resume(): Promise<void> {
    this.#accept(await this.api.call('queue.resume', {}));
  }

  /** Queues every failed and rejected sample again, not only the ones on the page shown. */
  async retryProblems(): Promise<number> {
    // The ids first, then queued a page at a time: one press retries them all, however many. A
    // sample queued leaves failed/rejected, so a second round finds those past the listing's cap;
    // a round that queues nothing ends it (a sample failing again at once would otherwise loop).
    let queued = 0;
    for (;;) {
      const { ids, total } = await this.api.call('samples.idsMatching', { filter: { states: ['failed', 'rejected'] } });
      let round = 0;
      for (let i = 0; i < ids.length; i += MAX_IDS) {
        round += (await this.api.call('queue.enqueue', { ids: ids.slice(i, i + MAX_IDS) })).queued;
      }
      queued += round;
      if (total <= ids.length || round === 0) return queued;
    }
  }

  #accept(s: QueueStatus): void {
    const startsRound = this.status !== null && waiting(this.status) === 0 && waiting(s) > 0;
    if (this.#baseline === null || startsRound) this.#baseline = { uploaded: s.counts.uploaded, problems: s.counts.failed + s.counts.rejected };
    this.status = s;
  }
}
