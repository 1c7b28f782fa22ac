import type { RemoteMessage } from './types.js';

interface Waiter {
  pred: (m: RemoteMessage) => boolean;
  resolve: (m: RemoteMessage) => void;
}

/** The ordered record of messages both ways, which tests can also wait on. */
export class MessageLog {
  readonly entries: RemoteMessage[] = [];
  #waiters = new Set<Waiter>();

  push(entry: RemoteMessage): void {
    this.entries.push(entry);
    for (const w of this.#waiters) {
      if (!w.pred(entry)) continue;
      this.#waiters.delete(w);
      w.resolve(entry);
    }
  }

  waitFor(pred: (m: RemoteMessage) => boolean, timeoutMs = 5000): Promise<RemoteMessage> {
    const hit = this.entries.find(pred);
    if (hit) return Promise.resolve(hit);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        pred,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        // The tail of the log is what a failing test needs to see.
        const tail = this.entries.slice(-5).map((m) => `${m.dir} ${JSON.stringify(m.message)}`).join('\n  ');
        reject(new Error(`No matching remote-management message within ${timeoutMs} ms; last ones:\n  ${tail || '(none)'}`));
      }, timeoutMs);
      this.#waiters.add(waiter);
    });
  }
}
