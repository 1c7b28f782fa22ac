import { closeSync, existsSync, openSync, readSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoreError } from '../errors.js';
import type { Logger } from '../log.js';
import { openDb, type Db } from './db.js';

export const DB_FILE = 'samples.db';
/** Left by a run that found the index damaged while working; the next start rebuilds. */
export const DAMAGED_MARK = `${DB_FILE}.damaged`;
const SQLITE_MAGIC = 'SQLite format 3\u0000';

/** Why the index was set aside, and where the damaged files are now. */
export interface IndexDamage {
  reason: string;
  /** The damaged samples.db (and its -wal/-shm) under their new names, relative to the data folder. */
  keptAs: string[];
}

export interface OpenedIndex {
  db: Db;
  /** Names in samples/ of the files the index owns (`<file>` of each stored `samples/<file>`); read when asked (a start that looks for orphans). */
  ownedNames: () => Set<string>;
  /** There was no samples.db (first start, or it was deleted). */
  created: boolean;
  damage: IndexDamage | null;
}

/**
 * Opens the sample index, and if it is damaged (a garbage header, an empty or truncated file, a
 * page SQLite cannot read, or a mark left by a run that hit such a page) sets the file aside as
 * samples.db.corrupt-<time> with its -wal and -shm, and opens a new empty one for the caller to
 * fill from the sample files. Nothing is deleted. A healthy index costs one read of every row's
 * header (a few ms for 20,000 samples).
 */
export function openIndex(dataDir: string, log: Logger, now: () => Date = () => new Date()): OpenedIndex {
  const dbPath = join(dataDir, DB_FILE);
  const created = !existsSync(dbPath);
  let reason = created
    ? // A log left by a deleted index must not be replayed into the new one.
      existsSync(`${dbPath}-wal`) || existsSync(`${dbPath}-shm`) ? 'samples.db was missing but its -wal/-shm were left over' : null
    : headerProblem(dbPath);
  reason ??= markProblem(dataDir);
  if (!reason) {
    try {
      return { ...openChecked(dataDir), created, damage: null };
    } catch (err) {
      if (!isDamage(err)) throw err;
      reason = `SQLite could not read it (${(err as Error).message})`;
    }
  }
  const keptAs = setAside(dataDir, now());
  log.error('the sample index is damaged; it is kept aside and rebuilt from the sample files', { reason, keptAs });
  return { ...openChecked(dataDir), created, damage: { reason, keptAs } };
}

/** Writes the mark that makes the next start rebuild; called when a statement meets a damaged page. */
export function markIndexDamaged(dataDir: string, err: Error): void {
  writeFileSync(join(dataDir, DAMAGED_MARK), `${new Date().toISOString()} ${err.message}\n`);
}

function openChecked(dataDir: string): Omit<OpenedIndex, 'created' | 'damage'> {
  const db = openDb(dataDir);
  try {
    // Reads every page of the table: a damaged one fails here, at start, not in the middle of a
    // session. A column of every row, not count(*), which SQLite answers from the smallest index.
    db.prepare('SELECT count(owned) AS n FROM samples NOT INDEXED').get();
    db.onDamaged = (err) => markIndexDamaged(dataDir, err);
    return { db, ownedNames: () => readOwnedNames(db) };
  } catch (err) {
    db.close();
    throw err;
  }
}

/** Owned files' names per read; the string of one read stays a few MB however big the folder. */
const NAMES_PER_READ = 65_536;
/**
 * Every row in rowid order, a page of owned files at a time, their names in samples/ joined by '/'
 * (the one character no file name holds; a stored place is `samples/<id><ext>`, one '/' in all).
 * A start that looks for orphans pays this, so it grows with the folder: one string per page instead of a JS value
 * per row, and names cut in SQL instead of by path.basename, cost a 20,000-sample folder's start
 * a third less CPU than a row per file did (median 37 vs 59 ms on this project's VM under load).
 */
function readOwnedNames(db: Db): Set<string> {
  const page = db.prepare(
    `SELECT group_concat(substr(file, instr(file, '/') + 1), '/') AS names, max(r) AS last
     FROM (SELECT rowid AS r, file FROM samples WHERE owned = 1 AND rowid > ? ORDER BY rowid LIMIT ${NAMES_PER_READ})`,
  );
  const names = new Set<string>();
  for (let after = Number.MIN_SAFE_INTEGER; ;) {
    const r = page.get(after) as { names: string | null; last: number | null };
    if (r.last === null || r.names === null) return names;
    for (const name of r.names.split('/')) names.add(name);
    after = r.last;
  }
}

function isDamage(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  // An empty file next to a stale -wal reads as "locked" in libsql; the header check catches most of those first.
  return code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB';
}

function headerProblem(dbPath: string): string | null {
  const st = statSync(dbPath);
  // A folder is not damage to set aside and rebuild over: it is someone's, and it stays.
  if (st.isDirectory()) {
    throw new CoreError('Unavailable', `Cannot open the sample index ${dbPath}: it is a folder, and the index is a file of that name. Move that folder out of the data folder (or rename it), then start again: the index is built anew from the sample files.`, { path: dbPath });
  }
  const size = st.size;
  if (size === 0) return 'samples.db is empty (0 bytes)';
  const fd = openSync(dbPath, 'r');
  try {
    const head = Buffer.alloc(16);
    const n = readSync(fd, head, 0, 16, 0);
    if (n < 16 || head.toString('latin1') !== SQLITE_MAGIC) return 'samples.db does not start with the SQLite header';
  } finally {
    closeSync(fd);
  }
  return null;
}

function markProblem(dataDir: string): string | null {
  const mark = join(dataDir, DAMAGED_MARK);
  if (!existsSync(mark)) return null;
  const fd = openSync(mark, 'r');
  try {
    const buf = Buffer.alloc(400);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return `a previous run found it damaged: ${buf.toString('utf8', 0, n).trim() || 'no details'}`;
  } finally {
    closeSync(fd);
  }
}

/** Renames samples.db, -wal, -shm and the damage mark to samples.db.corrupt-<time>[...]; returns the new names. */
function setAside(dataDir: string, at: Date): string[] {
  const stamp = at.toISOString().replace(/[:.]/g, '-');
  const kept: string[] = [];
  for (const suffix of ['', '-wal', '-shm']) {
    const from = join(dataDir, `${DB_FILE}${suffix}`);
    if (!existsSync(from)) continue;
    const to = `${DB_FILE}.corrupt-${stamp}${suffix}`;
    renameSync(from, join(dataDir, to));
    kept.push(to);
  }
  const mark = join(dataDir, DAMAGED_MARK);
  if (existsSync(mark)) {
    const to = `${DB_FILE}.corrupt-${stamp}.damaged`;
    renameSync(mark, join(dataDir, to));
    kept.push(to);
  }
  return kept;
}
