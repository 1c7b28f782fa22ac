/**
 * Capture processes of earlier runs that are still alive (their app was killed while the process
 * could not notice, e.g. stopped or stuck before its watcher ran): found and ended at start.
 *
 * Each capture process writes `<run folder>/capture-worker-<pid>.json` ({pid, parent, start}) and
 * removes it when it exits normally. A process is ended only when all of these hold, so a foreign
 * process (or a capture process of another running app) is never touched:
 *   - the file is in this user's private run folder,
 *   - /proc/<pid> belongs to this user, its command line carries WORKER_MARKER,
 *   - its start time equals the one recorded (the pid was not reused),
 *   - its recorded parent is gone (no live app owns it).
 * It is asked first (SIGTERM) and killed (SIGKILL) only when still there after a grace period.
 */
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../log.js';
import { pidAlive as alive, processStart } from '../process-identity.js';

/** In every capture process's argv (fork arguments), so it can be told from any other process. */
export const WORKER_MARKER = '--capture-desk-capture-worker';
export const RUN_DIR_ENV = 'CAPTURE_DESK_RUN_DIR';

/** This user's private folder for pid files: $XDG_RUNTIME_DIR/capture-desk, else <tmp>/capture-desk-<uid>-run. */
export function runFolder(env: NodeJS.ProcessEnv = process.env): string {
  const uid = process.getuid?.() ?? 0;
  const dir = env.XDG_RUNTIME_DIR ? join(env.XDG_RUNTIME_DIR, 'capture-desk') : join(tmpdir(), `capture-desk-${uid}-run`);
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const st = lstatSync(dir);
  if (!st.isDirectory() || st.uid !== uid || (st.mode & 0o022) !== 0) throw new Error(`${dir} is not a private folder of this user`);
  return dir;
}

/** Called by the capture process itself: records it; the file goes when it exits. */
export function recordSelf(env: NodeJS.ProcessEnv, parent: number): void {
  const dir = env[RUN_DIR_ENV];
  if (!dir || process.platform !== 'linux') return;
  const file = join(dir, `capture-worker-${process.pid}.json`);
  try {
    writeFileSync(file, JSON.stringify({ pid: process.pid, parent, start: processStart(process.pid) }), { mode: 0o600 });
    process.on('exit', () => rmSync(file, { force: true }));
  } catch {
    // no pid file: only the start-up sweep of a later run loses this one
  }
}

interface Record_ {
  pid: number;
  parent: number;
  start: string | null;
}

/** Ends leftovers (see the top of this file). Resolves with the pids that were ended. */
export async function endLeftovers(log: Logger, dir = runFolder(), graceMs = 1000): Promise<number[]> {
  if (process.platform !== 'linux') return [];
  const uid = process.getuid?.() ?? 0;
  const ended: number[] = [];
  for (const name of readdirSync(dir)) {
    if (!/^capture-worker-\d+\.json$/.test(name)) continue;
    const file = join(dir, name);
    let r: Record_;
    try {
      r = JSON.parse(readFileSync(file, 'utf8')) as Record_;
    } catch {
      continue; // being written right now, or not ours to judge
    }
    const ours = (() => {
      try {
        if (statSync(`/proc/${r.pid}`).uid !== uid) return false;
        return readFileSync(`/proc/${r.pid}/cmdline`, 'utf8').split('\0').includes(WORKER_MARKER) && processStart(r.pid) === r.start;
      } catch {
        return false;
      }
    })();
    if (!ours) {
      if (!alive(r.pid) || processStart(r.pid) !== r.start) rmSync(file, { force: true }); // long gone
      continue;
    }
    if (alive(r.parent) && r.parent !== 1) continue; // its app is still running
    log.warn('ending a capture process left over from an earlier run', { pid: r.pid, parent: r.parent });
    try {
      process.kill(r.pid, 'SIGTERM');
    } catch {
      // gone meanwhile
    }
    const until = Date.now() + graceMs;
    while (Date.now() < until && processStart(r.pid) === r.start) await new Promise((res) => setTimeout(res, 50));
    try {
      if (processStart(r.pid) === r.start) process.kill(r.pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
    rmSync(file, { force: true });
    ended.push(r.pid);
  }
  return ended;
}
