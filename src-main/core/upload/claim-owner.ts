import { hostname } from 'node:os';
import { pidAlive, processStart } from '../process-identity.js';

/**
 * Who marked a sample 'uploading' (QueueStore.takeBatch writes it into samples.claimed_by), so that
 * another process on the same data folder can tell a batch still being sent from one left by a
 * process that died while sending. Without it, every start took all in-flight samples back into
 * its own queue, a live app's included, and sent them a second time.
 */
export interface ClaimOwners {
  /** This process's tag: "host/pid/start". */
  readonly me: string;
  /** False when the process behind `owner` is known to be gone; an unreadable tag counts as gone. */
  alive(owner: string): boolean;
}

/**
 * A process is its pid plus when it started: pids are reused, and a new process with the old
 * one's pid must not keep the old one's claims alive. On Linux the start comes from /proc (clock
 * ticks since boot); elsewhere there is no cheap way to read another process's, so it is 0 and
 * the pid alone decides.
 */
export function processClaims(host = hostname(), pid = process.pid): ClaimOwners {
  const me = `${host}/${pid}/${startOf(pid) ?? 0}`;
  return {
    me,
    alive(owner) {
      if (owner === me) return true;
      const m = /^(.*)\/(\d+)\/(\d+)$/.exec(owner);
      // Another machine's process (a data folder on a shared disk) cannot be asked; taken back as
      // before, rather than held for ever by a machine that may be gone.
      if (!m || m[1] !== host) return false;
      const other = Number(m[2]);
      if (!pidAlive(other)) return false;
      const start = startOf(other);
      return start === null || Number(m[3]) === 0 || start === Number(m[3]);
    },
  };
}

/** The start as a number (0 never is one), or null where it cannot be read (outside Linux). */
function startOf(pid: number): number | null {
  const v = Number(processStart(pid));
  return Number.isFinite(v) && v > 0 ? v : null;
}
