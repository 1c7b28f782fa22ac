// Every sensor and audio sample has a length, however it came in: files referenced by
// `capture-desk upload` (small ones read whole, big ones by their header), files added by path in
// the app, watched folders' files (importFile), and samples indexed before lengths were read (the
// background backfill). Real files, the built CLI, the platform emulator, SQLite on disk.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, silentLogger } from '../../src-main/core/log.js';
import { fillLengths } from '../../src-main/core/samples/length-backfill.js';
import { SampleStore } from '../../src-main/core/samples/sample-store.js';
import { importFile } from '../../src-main/core/import/import-files.js';
import { runCli } from '../support/cli.js';
import { encodeCbor, png, sensorDoc, wav } from '../support/ingestion-server/fixtures.js';
import { startIngestionServer } from '../support/ingestion-server/server.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const jsonLines = (text: string) => text.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
const rows = (n: number) => Array.from({ length: n }, (_, i) => [i, i / 2, -i]);

async function folder() {
  const root = await mkdtemp(join(tmpdir(), 'cd-lengths-'));
  cleanups.push(() => rm(root, { recursive: true, force: true }));
  const files = join(root, 'files');
  await mkdir(files);
  await writeFile(join(files, 'idle.1.cbor'), encodeCbor(sensorDoc(rows(150), 10))); // 1500 ms
  await writeFile(join(files, 'wave.1.json'), JSON.stringify(sensorDoc(rows(40), 25))); // 1000 ms
  await writeFile(join(files, 'yes.1.wav'), wav(750)); // 750 ms, read whole
  await writeFile(join(files, 'long.1.wav'), wav(300_000)); // 9.6 MB: streamed, its length from the header
  await writeFile(join(files, 'photo.1.png'), png()); // no length
  return { root, files };
}

describe('sample lengths', () => {
  it('`capture-desk upload` gives every referenced sensor and audio file its length, as the platform measures it', { timeout: 60_000 }, async () => {
    const srv = await startIngestionServer();
    cleanups.push(() => srv.close());
    const { root, files } = await folder();
    const data = join(root, 'data');
    const up = await runCli(['upload', '--ingestion-url', srv.url, '--api-key', 'ei_test_key', '--data-dir', data, files]);
    expect(up.code, up.stderr).toBe(0);
    const listed = jsonLines((await runCli(['samples', 'list', '--json', '--data-dir', data])).stdout);
    const length = Object.fromEntries(listed.map((s) => [s.name, s.length_ms]));
    expect(length).toEqual({ 'idle.1.cbor': 1500, 'wave.1.json': 1000, 'yes.1.wav': 750, 'long.1.wav': 300_000, 'photo.1.png': null });
    // The same numbers the platform stored.
    for (const s of srv.samples.filter((x) => x.filename !== 'photo.1.png')) expect(s.totalLengthMs, s.filename).toBe(length[s.filename]);
  });

  it('a watched folder\'s file (importFile) has its length too, read from its first bytes', async () => {
    const { root, files } = await folder();
    const store = await SampleStore.open(join(root, 'data'), silentLogger);
    cleanups.push(() => store.close());
    const o = { category: 'training' as const, label: undefined, metadata: {}, boundingBoxes: [], addDateId: false, allowDuplicates: false, queue: false };
    for (const [name, ms] of [['idle.1.cbor', 1500], ['wave.1.json', 1000], ['long.1.wav', 300_000], ['photo.1.png', null]] as const) {
      const r = await importFile(store, join(files, name), o);
      expect(r.status === 'refused' ? r.reason : r.sample.lengthMs, name).toBe(ms);
    }
  });

  it('samples indexed without a length get it in the background, once: a file that tells none is not read again', async () => {
    const { root, files } = await folder();
    await writeFile(join(files, 'gone.1.cbor'), encodeCbor(sensorDoc(rows(10))));
    const store = await SampleStore.open(join(root, 'data'), createLogger(() => {}));
    cleanups.push(() => store.close());
    const o = { category: 'training' as const, label: undefined, metadata: {}, boundingBoxes: [], addDateId: false, allowDuplicates: false, queue: false };
    for (const name of ['idle.1.cbor', 'yes.1.wav', 'long.1.wav', 'photo.1.png', 'gone.1.cbor']) await importFile(store, join(files, name), o);
    await rm(join(files, 'gone.1.cbor'));
    // As an older version left them: no length.
    store.db.prepare('UPDATE samples SET length_ms = NULL, length_checked = 0').run();
    // A take kept without its sampling rate: its file's 1 ms a row is not its length.
    await writeFile(join(files, 'norate.1.cbor'), encodeCbor(sensorDoc(rows(40), 1)));
    const norate = await importFile(store, join(files, 'norate.1.cbor'), o);
    if (norate.status === 'refused') throw new Error(norate.reason);
    store.db.prepare(`UPDATE samples SET length_ms = NULL, extra = '{"rate_missing":true}' WHERE id = ?`).run(norate.sample.id);
    const announced: string[] = [];
    expect(await fillLengths(store, (ids) => announced.push(...ids))).toBe(3);
    const byName = Object.fromEntries(store.list().map((s) => [s.name, s.lengthMs]));
    expect(byName).toEqual({ 'idle.1.cbor': 1500, 'yes.1.wav': 750, 'long.1.wav': 300_000, 'photo.1.png': null, 'gone.1.cbor': null, 'norate.1.cbor': null });
    expect(announced).toHaveLength(3);
    expect(await fillLengths(store, () => {})).toBe(0);
    expect((store.db.prepare("SELECT count(*) AS n FROM samples WHERE length_checked = 1").get() as { n: number }).n).toBe(5); // not the image
  });
});
