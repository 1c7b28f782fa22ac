import { requestTimeoutMs } from './ingestion-client.js';

/**
 * How long a one-shot run waits for samples another process marked 'uploading' (a second run on
 * the same data folder, or the app). A live process settles them within its request timeout for
 * that many bytes; one killed while sending never does, and nothing records who claimed them or
 * when. So the wait is bounded from the last change seen to that set of samples: once it has stood
 * still for longer than such a request may take (plus a few seconds for recording the answer),
 * nobody is answering for it any more, and the run can end and say so.
 */
export class OthersInFlight {
  #mark: string | null = null;
  #since = 0;

  constructor(private readonly now: () => number, private readonly graceMs = 5_000) {}

  /** True when `seen` (QueueStore.inFlightMark) has not changed for longer than its request could take. */
  stuck(seen: { mark: string; bytes: number } | null): boolean {
    const now = this.now();
    if (seen === null || seen.mark !== this.#mark) {
      this.#mark = seen?.mark ?? null;
      this.#since = now;
      return false;
    }
    return now - this.#since > requestTimeoutMs(seen.bytes) + this.graceMs;
  }
}
