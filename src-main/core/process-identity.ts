import { readFileSync } from 'node:fs';

/**
 * Telling whether a process recorded earlier is still the same running process: its pid alone is
 * not enough (pids are reused), so Linux records its start time too. Used by the audio capture's
 * leftover sweep (audio/leftovers.ts), the sample store's writer marks (samples/writer-notes.ts) and
 * the upload queue's claims (upload/claim-owner.ts).
 */

/** Start time of a process (clock ticks since boot, field 22 of /proc/<pid>/stat), or null. */
export function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** A process of this pid exists (ours or another user's). As kill(2): 0 and negative pids name process groups. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
