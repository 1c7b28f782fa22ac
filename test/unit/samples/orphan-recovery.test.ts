import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src-main/core/log.js';
import { Db } from '../../../src-main/core/samples/sqlite.js';
import { SampleStore } from '../../../src-main/core/samples/sample-store.js';
import { useCleanups } from '../../support/cleanups.js';
import { encodeCbor, sensorDoc } from '../../support/ingestion-server/fixtures.js';
import { tempStore } from '../../support/temp-store.js';
import { noteCrashedRun } from './crashed-run.js';

const cleanups = useCleanups();

// What a start finds in samples/ (orphan-recovery.ts, fed by index-open.ts with the names of the
// files the index owns): a file whose row a crash lost comes back once, from its sidecar where it
// has one, a temp file of an unfinished write goes, and every other file is left as it is.
describe('a start re-indexes the sample files that have no row', () => {
  it('brings back each file without a row once, in the order of its id, removes temp files and leaves owned files alone', async () => {
    const { dir, store } = await tempStore(cleanups, 'cd-orphans-');
    const add = (i: number, label: string) =>
      store.addBytes({ name: `${label}.${i}.cbor`, kind: 'sensor', label, category: 'training', metadata: { take: String(i) } }, encodeCbor(sensorDoc([[i, 0], [0, i]])));
    const [kept, withSidecar, bare] = [await add(1, 'idle'), await add(2, 'wave'), await add(3, 'snake')];
    await store.close();
    // A crash between writing a file and committing its row, twice: once after the sidecar was written, once before.
    const db = new Db(join(dir, 'samples.db'));
    db.prepare('DELETE FROM samples WHERE id IN (?, ?)').run(withSidecar.id, bare.id);
    noteCrashedRun(db); // and the note that run left, as it never closed its store
    db.close();
    await rm(join(dir, 'samples', `${bare.id}.meta.json`));
    const temp = join(dir, 'samples', `.${kept.id}.cbor.tmp`);
    await writeFile(temp, 'half a write');

    const again = await SampleStore.open(dir, silentLogger);
    cleanups.push(() => again.close());
    const rows = again.db.prepare('SELECT id, label, metadata, note FROM samples ORDER BY rowid').all() as Array<{ id: string; label: string | null; metadata: string; note: string | null }>;
    expect(rows.map((r) => r.id)).toEqual([kept.id, withSidecar.id, bare.id]);
    expect(rows[1]).toMatchObject({ label: 'wave', metadata: JSON.stringify({ take: '2' }), note: null });
    expect(rows[2]!.note).toMatch(/recovered after an interrupted save/);
    expect(existsSync(temp)).toBe(false);
    expect(again.indexRebuild).toBeNull();
    // Looked once: the crashed run's note is gone with its files indexed.
    expect(again.db.prepare('SELECT count(*) AS n FROM writers').get()).toEqual({ n: 0 });
  });

  it('knows the files of a folder bigger than one read of the owned names (65,536)', async () => {
    const { dir, store } = await tempStore(cleanups, 'cd-orphans-big-');
    const n = 65_540;
    store.db.exec(`WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ${n})
      INSERT INTO samples (id, name, file, owned, kind, category, created, bytes, sha256, state)
      SELECT printf('id-%06d', i), 'x.cbor', printf('samples/id-%06d.cbor', i), 1, 'sensor', 'training', '2026-12-07T00:00:00.000Z', 1, 'h', 'local' FROM k`);
    await store.close();
    const db = new Db(join(dir, 'samples.db'));
    noteCrashedRun(db);
    db.close();
    const bytes = encodeCbor(sensorDoc([[1, 2]]));
    // The last row's file is read in the second page of names: it has a row, so it is no orphan.
    await writeFile(join(dir, 'samples', `id-${String(n).padStart(6, '0')}.cbor`), bytes);
    await writeFile(join(dir, 'samples', 'id-999999.cbor'), bytes);
    const again = await SampleStore.open(dir, silentLogger);
    cleanups.push(() => again.close());
    expect(again.db.prepare('SELECT count(*) AS n FROM samples').get()).toEqual({ n: n + 1 });
    expect(again.db.prepare('SELECT id FROM samples ORDER BY rowid DESC LIMIT 1').get()).toEqual({ id: 'id-999999' });
  }, 30_000);
});
