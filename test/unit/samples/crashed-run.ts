import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import type { Db } from '../../../src-main/core/samples/sqlite.js';

/**
 * Leaves in `writers` the note a run leaves when it stops without closing its store (killed,
 * crashed, power lost): a process of this computer that has ended. Tests that make a file without
 * a row by hand (as such a run leaves it) add it, so the next start looks through samples/.
 */
export function noteCrashedRun(db: Db): number {
  const ended = spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' }).pid!;
  db.prepare('INSERT INTO writers (token, host, pid, start, since) VALUES (?, ?, ?, ?, ?)').run(`crashed-${ended}`, hostname(), ended, '1', new Date().toISOString());
  return ended;
}
