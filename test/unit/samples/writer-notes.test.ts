import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src-main/core/log.js';
import { processStart } from '../../../src-main/core/process-identity.js';
import { SampleStore } from '../../../src-main/core/samples/sample-store.js';
import { Db } from '../../../src-main/core/samples/sqlite.js';
import { useCleanups } from '../../support/cleanups.js';
import { encodeCbor, sensorDoc } from '../../support/ingestion-server/fixtures.js';
import { tempStore } from '../../support/temp-store.js';
import { noteCrashedRun } from './crashed-run.js';

const cleanups = useCleanups();

// A start looks through samples/ for files without a row only when a run may have left one
// (writer-notes.ts): one that stopped without closing its store. A file without a row that no
// such run left is put there by hand here, so whether a start looked shows in whether it came back.
const bytes = (i: number) => encodeCbor(sensorDoc([[i, 0], [0, i]]));
const ids = (store: SampleStore) => (store.db.prepare('SELECT id FROM samples ORDER BY rowid').all() as Array<{ id: string }>).map((r) => r.id);
const notes = (db: Db) => db.prepare('SELECT token, pid FROM writers').all() as Array<{ token: string; pid: number }>;

async function reopen(dir: string) {
  const store = await SampleStore.open(dir, silentLogger);
  cleanups.push(() => store.close());
  return store;
}

/** A closed folder with one sample, then a file without a row ("stray") and `note` done to its index. */
async function folder(prefix: string, note: (db: Db) => void) {
  const { dir, store } = await tempStore(cleanups, prefix);
  const kept = await store.addBytes({ name: 'idle.1.cbor', kind: 'sensor', label: 'idle', category: 'training' }, bytes(1));
  // While it writes, this run is noted; a clean close takes the note away.
  expect(notes(store.db).map((n) => n.pid)).toEqual([process.pid]);
  await store.close();
  const stray = '01900000-0000-7000-8000-000000000001';
  await writeFile(join(dir, 'samples', `${stray}.cbor`), bytes(2));
  const db = new Db(join(dir, 'samples.db'));
  expect(notes(db)).toEqual([]);
  note(db);
  db.close();
  return { dir, kept: kept.id, stray };
}

describe('a start looks for files without a row only when a run stopped without closing', () => {
  it('after clean closes it does not look', async () => {
    const { dir, kept } = await folder('cd-notes-clean-', () => {});
    const again = await reopen(dir);
    expect(ids(again)).toEqual([kept]);
  });

  it('after a run that ended without closing, it looks once and forgets that run', async () => {
    const { dir, kept, stray } = await folder('cd-notes-crash-', (db) => noteCrashedRun(db));
    const again = await reopen(dir);
    expect(ids(again)).toEqual([kept, stray]);
    expect(notes(again.db)).toEqual([]);
  });

  it('a run still going is not looked after (it indexes its own files); a run on another computer is, and its note stays', async () => {
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    cleanups.push(() => void other.kill());
    const running = await folder('cd-notes-running-', (db) =>
      db.prepare("INSERT INTO writers (token, host, pid, start, since) VALUES ('running', ?, ?, ?, '')").run(hostname(), other.pid!, processStart(other.pid!)));
    const a = await reopen(running.dir);
    expect(ids(a)).toEqual([running.kept]);
    expect(notes(a.db).map((n) => n.token)).toEqual(['running']);

    const elsewhere = await folder('cd-notes-elsewhere-', (db) =>
      db.prepare("INSERT INTO writers (token, host, pid, start, since) VALUES ('elsewhere', 'another-computer', ?, '1', '')").run(process.pid));
    const b = await reopen(elsewhere.dir);
    expect(ids(b)).toEqual([elsewhere.kept, elsewhere.stray]);
    expect(notes(b.db).map((n) => n.token)).toEqual(['elsewhere']);
  });

  it('a store of this process that closed after a failed change is looked after by the next open', async () => {
    const { dir, store } = await tempStore(cleanups, 'cd-notes-failed-');
    const real = store.db.transaction.bind(store.db);
    // The rows are refused after the file is in place (a full disk, say); this process goes on.
    store.db.transaction = (() => () => {
      throw new Error('disk I/O error');
    }) as typeof real;
    await expect(store.addCopies([{ input: { name: 'wave.1.cbor', kind: 'sensor', label: 'wave', category: 'training' }, bytes: new Uint8Array(bytes(1)), source: null }])).rejects.toThrow('disk I/O error');
    store.db.transaction = real;
    await store.close();
    const again = await reopen(dir);
    expect(again.list().map((s) => s.label)).toEqual(['wave']);
    expect(notes(again.db)).toEqual([]);
  });

  it('the same pid started again is another run: the old note is a run that is gone', async () => {
    const { dir, kept, stray } = await folder('cd-notes-reused-', (db) =>
      db.prepare("INSERT INTO writers (token, host, pid, start, since) VALUES ('reused', ?, ?, 'not-its-start', '')").run(hostname(), process.pid));
    const again = await reopen(dir);
    expect(ids(again)).toEqual([kept, stray]);
    expect(notes(again.db)).toEqual([]);
  });

  it('a data folder of a version that kept no notes (schema 7) opens, keeps its samples, and is looked through once', async () => {
    const { dir, kept, stray } = await folder('cd-notes-old-', (db) => {
      db.exec('DROP TABLE writers; ALTER TABLE samples DROP COLUMN claimed_by');
      db.pragma('user_version = 7');
    });
    const again = await reopen(dir);
    expect(again.db.pragma('user_version', { simple: true })).toBe(9);
    expect(ids(again)).toEqual([kept, stray]);
    expect(again.get(kept)).toMatchObject({ label: 'idle', file: `samples/${kept}.cbor` });
    expect(notes(again.db)).toEqual([]);
    await again.close();
    // Looked once: a later stray file is not indexed by a start after clean closes.
    await writeFile(join(dir, 'samples', '01900000-0000-7000-8000-000000000002.cbor'), bytes(3));
    const third = await reopen(dir);
    expect(ids(third)).toEqual([kept, stray]);
  });
});
