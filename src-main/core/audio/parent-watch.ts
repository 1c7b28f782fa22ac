/**
 * A helper process must never outlive the app, even when its main thread is stuck in native code
 * (a futex wait inside a sound library cannot see 'disconnect'). A worker thread of its own has its
 * own event loop: it looks at the parent every 250 ms and, once the parent is gone, gives the main
 * thread `graceMs` to leave by itself, then ends the process with SIGKILL.
 *
 * Plain Node, no native code: Linux's PR_SET_PDEATHSIG is not reachable from Node.
 */
import { Worker } from 'node:worker_threads';

/** Env var through which the spawner names the parent to watch (its pid). */
export const PARENT_PID_ENV = 'CAPTURE_DESK_PARENT_PID';

const WATCHER = `
const { workerData } = require('node:worker_threads');
const { parent, graceMs, pollMs } = workerData;
function gone() {
  if (process.ppid !== parent) return true; // re-parented: the parent died
  try { process.kill(parent, 0); return false; } catch (e) { return e.code === 'ESRCH'; }
}
const timer = setInterval(() => {
  if (!gone()) return;
  clearInterval(timer);
  setTimeout(() => process.kill(process.pid, 'SIGKILL'), graceMs);
}, pollMs);
`;

/** Starts the watcher (call first thing in the helper). Returns false if there is no parent to watch. */
export function watchParent(o: { graceMs?: number; pollMs?: number; env?: NodeJS.ProcessEnv } = {}): boolean {
  const parent = Number((o.env ?? process.env)[PARENT_PID_ENV]) || process.ppid;
  if (!parent || parent === 1) return false;
  // execArgv: [] so that flags of this process (e.g. --input-type=module) cannot turn the
  // CommonJS watcher into something that fails to start.
  const w = new Worker(WATCHER, { eval: true, execArgv: [], workerData: { parent, graceMs: o.graceMs ?? 1000, pollMs: o.pollMs ?? 250 } });
  w.on('error', (err) => process.stderr.write(`capture-desk: the parent watcher stopped: ${String(err)}\n`));
  w.unref(); // it never keeps the process alive by itself
  return true;
}
