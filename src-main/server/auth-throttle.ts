export interface AuthThrottleOptions {
  /** Failures answered at once before the delay starts (a mistyped URL, a stale tab). Default 3. */
  free: number;
  /** The first delay; each further failure doubles it. Default 100 ms. */
  baseMs: number;
  /** The longest delay. Default 10 s. */
  maxMs: number;
  /** An address with no failure for this long starts again from nothing. Default 60 s. */
  forgetMs: number;
  /** Answers one address may have waiting; more are dropped without an answer. Default 16. */
  maxWaiting: number;
  now: () => number;
}

export const DEFAULT_AUTH_THROTTLE: AuthThrottleOptions = { free: 3, baseMs: 100, maxMs: 10_000, forgetMs: 60_000, maxWaiting: 16, now: Date.now };

interface Entry {
  failures: number;
  /** When the last queued refusal is answered: answers to one address go out one after another. */
  readyAt: number;
  waiting: number;
}

/** At most this many addresses are remembered; the oldest go first. */
const MAX_ADDRESSES = 10_000;

/**
 * Slows down repeated bad tokens and cookies from one address: after a few free failures each
 * refusal waits a growing delay (doubling up to a cap), and refusals to one address are answered
 * one after another, so guesses sent in parallel gain nothing. A good token or cookie from the
 * address starts it again from nothing.
 */
export class AuthThrottle {
  readonly #o: AuthThrottleOptions;
  readonly #by = new Map<string, Entry>();

  constructor(options: Partial<AuthThrottleOptions> = {}) {
    this.#o = { ...DEFAULT_AUTH_THROTTLE, ...options };
  }

  /**
   * Counts a failure from `address` and resolves when its refusal may be answered: true to answer,
   * false to drop the connection without one (too many already waiting from that address).
   */
  async failed(address: string): Promise<boolean> {
    const now = this.#o.now();
    let e = this.#by.get(address);
    if (e && e.waiting === 0 && now - e.readyAt > this.#o.forgetMs) {
      this.#by.delete(address);
      e = undefined;
    }
    if (!e) {
      e = { failures: 0, readyAt: now, waiting: 0 };
      this.#remember(address, e);
    }
    e.failures += 1;
    if (e.waiting >= this.#o.maxWaiting) return false;
    const delay = this.delayFor(e.failures);
    e.readyAt = Math.max(now, e.readyAt) + delay;
    const wait = e.readyAt - now;
    if (wait <= 0) return true;
    e.waiting += 1;
    const entry = e;
    await new Promise((r) => setTimeout(r, wait).unref());
    entry.waiting -= 1;
    return true;
  }

  succeeded(address: string): void {
    const e = this.#by.get(address);
    if (e && e.waiting === 0) this.#by.delete(address);
  }

  /** The delay before the refusal of the `n`-th failure in a row. */
  delayFor(n: number): number {
    if (n <= this.#o.free) return 0;
    return Math.min(this.#o.baseMs * 2 ** Math.min(n - this.#o.free - 1, 30), this.#o.maxMs);
  }

  #remember(address: string, e: Entry): void {
    if (this.#by.size >= MAX_ADDRESSES) {
      const oldest = this.#by.keys().next().value;
      if (oldest !== undefined) this.#by.delete(oldest);
    }
    this.#by.set(address, e);
  }
}
