import type { EventBus } from '../event-bus.js';

/** How long a measured rate may take to hold still, and how still: two estimates in a row (half a second apart) within 0.2 %. */
const SETTLE_MAX_MS = 8000;
const SETTLED_WITHIN = 0.002;

export interface SettledRate {
  /** The estimate once two in a row agree (steady), else the last one after the wait (null: none came). */
  result: Promise<{ hz: number; steady: boolean } | null>;
  cancel(): void;
}

/**
 * A board's rate measured from when its lines arrive, once it holds still. The rate known when a
 * serial source has found its columns comes from a few lines (and the burst a port holds from
 * before it was opened): a 62.5 Hz board can read 67-75 Hz then. Windows cut at that rate would
 * be the wrong length and their times wrong, so a model started on a just-opened board waits for
 * the source's own estimates ('stream.stats', every half second) to agree.
 */
export function settledRate(bus: EventBus, sourceId: string, maxMs = SETTLE_MAX_MS): SettledRate {
  let off: () => void = () => {};
  let timer: NodeJS.Timeout | undefined;
  let done: (v: { hz: number; steady: boolean } | null) => void = () => {};
  let last: number | null = null;
  const result = new Promise<{ hz: number; steady: boolean } | null>((resolve) => {
    done = (v) => {
      clearTimeout(timer);
      off();
      resolve(v);
    };
    timer = setTimeout(() => done(last === null ? null : { hz: last, steady: false }), maxMs);
    off = bus.on('stream.stats', (s) => {
      if (s.sourceId !== sourceId || s.frequencyHz === null) return;
      const hz = s.frequencyHz;
      if (last !== null && Math.abs(hz - last) / last <= SETTLED_WITHIN) done({ hz, steady: true });
      last = hz;
    });
  });
  return { result, cancel: () => done(null) };
}
