// The SQLite wrapper over libsql: each test pins one place where libsql differs from
// better-sqlite3 (which the core was written against) and the wrapper makes it behave.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src-main/core/log.js';
import { openDb } from '../../../src-main/core/samples/db.js';
import { SampleStore } from '../../../src-main/core/samples/sample-store.js';
import { Db } from '../../../src-main/core/samples/sqlite.js';

const dirs: string[] = [];
const dbs: Db[] = [];
afterEach(async () => {
  for (const db of dbs.splice(0)) db.close();
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'cd-sqlite-'));
  dirs.push(d);
  return d;
}

async function table(): Promise<Db> {
  const db = new Db(join(await tempDir(), 't.db'));
  dbs.push(db);
  db.exec('CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER, b BLOB)');
  return db;
}

describe('SQLite wrapper over libsql', () => {
  it('returns rows from get() without the _metadata field libsql adds', async () => {
    const db = await table();
    db.prepare('INSERT INTO t (id, n) VALUES (?, ?)').run('a', 1);
    const row = db.prepare('SELECT id, n FROM t WHERE id = ?').get('a');
    expect(row).toEqual({ id: 'a', n: 1 });
    expect(Object.keys(row as object)).toEqual(['id', 'n']);
    expect(db.prepare('SELECT id, n FROM t').all()).toEqual([{ id: 'a', n: 1 }]);
    expect(db.prepare('SELECT id FROM t WHERE id = ?').get('none')).toBeUndefined();
  });

  it('plucks the first column for get() as well as all(), and reads simple pragmas as values', async () => {
    const db = await table();
    db.prepare('INSERT INTO t (id, n) VALUES (?, ?)').run('a', 7);
    expect(db.prepare('SELECT n FROM t WHERE id = ?').pluck().get('a')).toBe(7);
    expect(db.prepare('SELECT EXISTS (SELECT 1 FROM t) AS e').pluck().get()).toBe(1);
    expect(db.prepare('SELECT id FROM t').pluck().all()).toEqual(['a']);
    db.pragma('user_version = 4');
    expect(db.pragma('user_version', { simple: true })).toBe(4);
    expect(db.pragma('user_version')).toEqual([{ user_version: 4 }]);
  });

  it('binds named parameters from an object, and a lone null or Buffer as a positional value', async () => {
    const db = await table();
    expect(db.prepare('INSERT INTO t (id, n) VALUES (@id, @n)').run({ id: 'a', n: 2 }).changes).toBe(1);
    expect(db.prepare('SELECT ? IS NULL AS x').pluck().get(null)).toBe(1);
    db.prepare('UPDATE t SET b = ? WHERE id = ?').run(Buffer.from([1, 2, 3]), 'a');
    expect(db.prepare('SELECT length(b) FROM t WHERE b = ?').pluck().get(Buffer.from([1, 2, 3]))).toBe(3);
  });

  it('refuses a boolean, undefined or object with a TypeError instead of letting libsql abort the process', async () => {
    const db = await table();
    const insert = db.prepare('INSERT INTO t (id, n) VALUES (?, ?)');
    expect(() => insert.run('a', true as unknown as number)).toThrow(/parameter 2 is boolean/);
    expect(() => insert.run('a', undefined as unknown as number)).toThrow(/parameter 2 is undefined/);
    expect(() => db.prepare('INSERT INTO t (id, n) VALUES (@id, @n)').run({ id: 'a', n: false })).toThrow(/@n is boolean/);
    expect(db.prepare('SELECT COUNT(*) FROM t').pluck().get()).toBe(0);
  });

  it('proves the refusal matters: libsql itself aborts the whole process on a bound boolean', () => {
    // In a child: the abort is a Rust panic, not an exception, and would take vitest down.
    const require = createRequire(import.meta.url);
    const libsql = require.resolve('libsql');
    const child = spawnSync(process.execPath, ['-e', `const D = require(${JSON.stringify(libsql)}); new D(':memory:').prepare('SELECT ?').get(true); console.log('survived')`], { encoding: 'utf8' });
    expect(child.stdout).not.toContain('survived');
    expect(child.signal ?? child.status).not.toBe(0);
    expect(child.stderr).toMatch(/panicked/);
  });

  it('a transaction after close throws instead of aborting the process (libsql panics on inTransaction)', async () => {
    // Were the guard gone, this would abort vitest's worker (a Rust panic), failing the file.
    const db = new Db(join(await tempDir(), 'c.db'));
    db.exec('CREATE TABLE t (id TEXT)');
    db.close();
    expect(db.inTransaction).toBe(false);
    expect(() => db.transaction(() => 1)()).toThrow('The sample index is closed');
    // And the same question put to libsql itself does abort: the guard is what keeps the process.
    const raw = createRequire(import.meta.url).resolve('libsql');
    const bare = spawnSync(process.execPath, ['-e', `const D = require(${JSON.stringify(raw)}); const d = new D(':memory:'); d.close(); d.inTransaction; console.log('survived')`], { encoding: 'utf8' });
    expect(bare.stdout).not.toContain('survived');
    expect(bare.stderr).toMatch(/panicked/);
  });

  it('commits a transaction, rolls it back on a throw, and nests with savepoints', async () => {
    const db = await table();
    const add = db.prepare('INSERT INTO t (id) VALUES (?)');
    expect(db.transaction(() => { add.run('a'); return 'done'; })()).toBe('done');
    expect(() => db.transaction(() => { add.run('b'); throw new Error('boom'); })()).toThrow('boom');
    // The inner one fails and is caught: only its rows go, the outer transaction commits.
    db.transaction(() => {
      add.run('c');
      expect(() => db.transaction(() => { add.run('d'); add.run('a'); })()).toThrow(/UNIQUE/);
      add.run('e');
    })();
    expect(db.inTransaction).toBe(false);
    expect(db.prepare('SELECT id FROM t ORDER BY id').pluck().all()).toEqual(['a', 'c', 'e']);
  });

  it('refuses an async transaction function, whose commit could not wait for it', async () => {
    const db = await table();
    expect(() => db.transaction(async () => db.prepare('INSERT INTO t (id) VALUES (?)').run('a'))()).toThrow(/must not return a promise/);
    expect(db.inTransaction).toBe(false);
    expect(db.prepare('SELECT COUNT(*) FROM t').pluck().get()).toBe(0);
  });

  it('opens the index with WAL and synchronous=FULL', async () => {
    const db = openDb(await tempDir());
    dbs.push(db);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(2); // FULL
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
  });

  it('opens and keeps using a sample index written by better-sqlite3 (the releases before libsql)', async () => {
    const dir = await tempDir();
    const log = createLogger(() => {});
    // Written by the previous binding: schema, rows and WAL as an upgraded user has them.
    const require = createRequire(import.meta.url);
    const Old = require('better-sqlite3') as new (path: string) => { exec(sql: string): void; pragma(s: string): unknown; close(): void };
    const first = await SampleStore.open(dir, log);
    const s = await first.addBytes({ name: 'idle.1.cbor', kind: 'sensor', label: 'idle', category: 'training', queue: true }, Buffer.from('x'));
    await first.close(); // its sidecar is written by then, not while the folder is removed
    const old = new Old(join(dir, 'samples.db'));
    old.pragma('journal_mode = WAL');
    old.exec(`UPDATE samples SET label = 'written-by-better-sqlite3' WHERE id = '${s.id}'`);
    old.close();
    const store = await SampleStore.open(dir, log);
    try {
      expect(store.get(s.id)).toMatchObject({ label: 'written-by-better-sqlite3', state: 'queued', name: 'idle.1.cbor' });
      expect(store.counts().queued).toBe(1);
    } finally {
      await store.close();
    }
  });
});
