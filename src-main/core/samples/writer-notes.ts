import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, openSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { CoreError } from '../errors.js';
import { fsyncDirSync } from '../fs/atomic-write.js';
import { pidAlive, processStart } from '../process-identity.js';
import { BEFORE_WRITER_NOTES, type Db } from './db.js';

/**
 * Which runs may have left files in samples/ that no row names, so a start looks through the
 * folder only when one may have: a folder of 20,000 samples holds 40,000 entries, and listing
 * them and every owned file's name cost each start (every CLI command) ~0.1 s of CPU and grew with
 * the folder.
 *
 * A store notes itself in the index's `writers` table (migration 8), durably, before its first
 * change to samples/ (a file written, moved or removed) and takes the note away when it closes,
 * after its last row is committed. A file without a row is left only by a run that stopped
 * between the two, so its note stays. A start looks through samples/ when a note belongs to a run
 * that is gone, or whose state it cannot tell (another computer sharing the folder; a pid with no
 * start time to check it against, outside Linux); a run that is still going indexes its own files,
 * so its note alone asks for nothing (and its files in flight are not taken for orphans). After
 * the look, the notes of runs that are gone are removed. Migration 8 leaves one note of no run
 * (BEFORE_WRITER_NOTES): a folder written by a version that kept no notes is looked through once. A
 * version without this table refuses the folder (its schema is newer), so no run writes unnoted.
 *
 * A full disk (or a folder the index cannot grow in) refuses the note itself. Then the run leaves
 * an empty file, LOOK_FILE, beside samples.db instead (an empty file takes an inode and a name, no
 * data block, so a full disk still takes it) and goes on: what it saves is kept, as it was before
 * notes, and the next start that sees the file looks through samples/ and removes it. Only when
 * even that file cannot be made is nothing written, and the error says so.
 */
interface WriterRow {
  token: string;
  host: string;
  pid: number;
  start: string | null;
}

/** Beside samples.db: a run whose note the index refused was here; the next start looks through samples/. */
export const LOOK_FILE = '.look-in-samples';

/** The notes of this process's stores that are open: a note of this process not among them was left by a store closed after a failure. */
const openHere = new Set<string>();

/** This store's note in `writers`. */
export class WriterNote {
  readonly #db: Db;
  /** samples.db, for the words of an error. */
  readonly #dbPath: string;
  #token: string | null = null;
  /** A change failed partway (a file placed whose row was refused, say): the note outlives the close. */
  #kept = false;

  constructor(db: Db, dbPath: string) {
    this.#db = db;
    this.#dbPath = dbPath;
  }

  /** Before every change to samples/: the first call notes this run, durably even on a connection set to synchronous NORMAL. */
  note(): void {
    if (this.#token !== null) return;
    const token = randomUUID();
    const was = this.#db.pragma('synchronous', { simple: true }) as number;
    if (was < 2) this.#db.pragma('synchronous = FULL');
    try {
      this.#db.prepare('INSERT INTO writers (token, host, pid, start, since) VALUES (?, ?, ?, ?, ?)').run(token, hostname(), process.pid, processStart(process.pid), new Date().toISOString());
    } catch (err) {
      const refused = noteRefused(this.#dbPath, err);
      if (refused === err || !leaveLookFile(this.#dbPath)) throw refused;
      // Noted by the file instead: nothing to take away at close, the next start looks.
      this.#token = LOOK_FILE;
      return;
    } finally {
      if (was < 2) this.#db.pragma(`synchronous = ${was}`);
    }
    this.#token = token;
    openHere.add(token);
  }

  /** A change to samples/ failed or was left unfinished: it may have left a file without a row, so the next start looks. */
  keep(): void {
    this.#kept = true;
  }

  /** At close, after the last row is committed: nothing this run wrote is left without its row, unless keep() said so. */
  clear(): void {
    if (this.#token === null || this.#token === LOOK_FILE) return;
    openHere.delete(this.#token);
    if (this.#kept) return;
    this.#db.prepare('DELETE FROM writers WHERE token = ?').run(this.#token);
    this.#token = null;
  }
}

/** Whether samples/ may hold a file no row names, and the notes of runs that are gone (removed after the look: forgetGone). */
export function writersToCheck(db: Db, dataDir: string, here = hostname()): { look: boolean; gone: string[] } {
  const rows = db.prepare('SELECT token, host, pid, start FROM writers').all() as WriterRow[];
  let look = existsSync(join(dataDir, LOOK_FILE));
  const gone: string[] = [];
  for (const r of rows) {
    const state = r.token === BEFORE_WRITER_NOTES ? 'gone' : runState(r, here);
    if (state === 'running') continue;
    look = true;
    if (state === 'gone') gone.push(r.token);
  }
  return { look, gone };
}

/**
 * After the look through samples/: those runs' files all have rows now, and so do those of the runs
 * that left LOOK_FILE (a run still going that left it may add a file after the look: it noted
 * itself by the file because the disk was full, and its error said the file is not indexed).
 */
export function forgetGone(db: Db, dataDir: string, tokens: readonly string[]): void {
  if (tokens.length > 0) db.prepare('DELETE FROM writers WHERE token IN (SELECT value FROM json_each(?))').run(JSON.stringify(tokens));
  rmSync(join(dataDir, LOOK_FILE), { force: true });
}

/** LOOK_FILE beside samples.db, made and on disk; false when it cannot be. */
function leaveLookFile(dbPath: string): boolean {
  try {
    closeSync(openSync(join(dirname(dbPath), LOOK_FILE), 'a'));
    fsyncDirSync(dirname(dbPath));
    return true;
  } catch {
    return false;
  }
}

function runState(r: WriterRow, here: string): 'running' | 'gone' | 'unknown' {
  if (r.host !== here) return 'unknown';
  if (!Number.isInteger(r.pid) || r.pid <= 0 || !pidAlive(r.pid)) return 'gone';
  // Without a start time the pid may be another process's now: not known to be that run.
  if (r.start === null) return 'unknown';
  if (processStart(r.pid) !== r.start) return 'gone';
  // This process, but a store of it that closed after a failure: nothing here will index its files.
  return r.pid === process.pid && !openHere.has(r.token) ? 'gone' : 'running';
}

/** The note could not be written (a full disk, a read-only folder): nothing was written to samples/ yet, and the error says so. */
function noteRefused(dbPath: string, err: unknown): unknown {
  const code = String((err as { code?: unknown } | null)?.code ?? '');
  const full = /FULL|ENOSPC/.test(code) || /disk is full/i.test((err as Error).message);
  if (!full && !/READONLY|IOERR/.test(code)) return err;
  return new CoreError('Unavailable',
    `Could not write to the sample index (${dbPath}): ${full ? 'the disk is full' : 'the data folder is read-only'} (${code || (err as Error).message}), so nothing new was put in the data folder. ` +
      `${full ? 'Free some space on that disk' : 'Make the data folder writable'}, then try again.`,
    { path: dbPath, errno: full ? 'ENOSPC' : 'EROFS' });
}
