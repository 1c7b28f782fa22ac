import { readdirSync, readFileSync } from 'node:fs';
import { WORKER_MARKER } from '../../../src-main/core/audio/leftovers.js';

/** Live processes (not zombies) whose parent is `parent` and whose command line holds the capture process's marker. */
export function captureProcessesOf(parent: number): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(ppid) !== parent || state === 'Z') continue;
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').includes(WORKER_MARKER)) found.push(Number(name));
    } catch {
      // ended while we looked
    }
  }
  return found;
}

/** Still running (a zombie waiting for its reaper counts as ended). */
export function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Waits until `parent` has a capture process; resolves with their pids. */
export async function waitForCaptureProcess(parent: number, timeoutMs = 15_000): Promise<number[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const pids = captureProcessesOf(parent);
    if (pids.length) return pids;
    if (Date.now() > until) throw new Error(`process ${parent} started no capture process within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Resolves with how long it took until none of `pids` runs, or with the ones left after `timeoutMs`. */
export async function endedWithin(pids: number[], timeoutMs: number): Promise<{ ms: number; left: number[] }> {
  const t0 = Date.now();
  for (;;) {
    const left = pids.filter(running);
    if (left.length === 0 || Date.now() - t0 > timeoutMs) return { ms: Date.now() - t0, left };
    await new Promise((r) => setTimeout(r, 25));
  }
}
