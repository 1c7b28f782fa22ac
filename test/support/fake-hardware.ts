import type { Clock } from '../../src-main/core/clock.js';
import type { SerialPortInfo } from '../../src-main/core/contract/contract.js';
import type { PortLister } from '../../src-main/core/serial/port-lister.js';

/** A clock the test advances by hand; `every` callbacks run as time passes their period. */
export class ManualClock implements Clock {
  #now = 0;
  #timers = new Set<{ ms: number; next: number; fn: () => void }>();

  now(): number {
    return this.#now;
  }

  every(ms: number, fn: () => void): () => void {
    const t = { ms, next: this.#now + ms, fn };
    this.#timers.add(t);
    return () => this.#timers.delete(t);
  }

  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      const due = [...this.#timers].filter((t) => t.next <= end).sort((a, b) => a.next - b.next)[0];
      if (!due) break;
      this.#now = due.next;
      due.next += due.ms;
      due.fn();
    }
    this.#now = end;
  }
}

export function fixedPorts(ports: SerialPortInfo[]): PortLister {
  return { list: async () => ports };
}
