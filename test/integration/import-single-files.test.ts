// `samples import FILE...` of single files (importSampleFiles): hundreds of real files on the real
// filesystem, more than one batch of 256, copied into a real data folder with its SQLite index.
// Good files and bad ones mixed: every good one is imported, each bad one named with its reason, in
// the order given; a crash before a batch's commit leaves it resumable; the CLI says the same.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../src-main/core/log.js';
import { importSampleFiles } from '../../src-main/core/import/single-files.js';
import { SampleStore } from '../../src-main/core/samples/sample-store.js';
import { runCli } from '../support/cli.js';
import { encodeCbor, sensorDoc, wav } from '../support/ingestion-server/fixtures.js';

let work: string;
let files: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'cd-import-single-'));
  files = join(work, 'files');
  mkdirSync(files);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const values = (i: number) => [[i, 1, 9.81], [i, 2, 9.8], [i, 3, 9.79]];

/** A good file of each kind in turn, named `<label>.<i>.<ext>`; returns its path and the sample name it becomes. */
function good(i: number): { path: string; name: string } {
  const ext = ['json', 'cbor', 'wav', 'csv'][i % 4]!;
  const path = join(files, `${['idle', 'wave'][i % 2]}.${i}.${ext}`);
  if (ext === 'json') writeFileSync(path, JSON.stringify(sensorDoc(values(i))));
  else if (ext === 'cbor') writeFileSync(path, encodeCbor(sensorDoc(values(i))));
  else if (ext === 'wav') {
    const w = wav(20);
    w.writeInt16LE(i, 44);
    writeFileSync(path, w);
  } else writeFileSync(path, `timestamp,accX,accY,accZ\n${values(i).map((v, r) => `${r * 10},${v.join(',')}`).join('\n')}\n`);
  return { path, name: ext === 'csv' ? path.slice(files.length + 1).replace(/\.csv$/, '.cbor') : path.slice(files.length + 1) };
}

/** Bad files, each with the words it is refused with (as before batching: see cli-segment.test.ts). */
function bad(): Array<{ path: string; reason: string | RegExp }> {
  const w = (name: string, body: string) => {
    writeFileSync(join(files, name), body);
    return join(files, name);
  };
  return [
    { path: w('torn.json', '{"protected":'), reason: /^"torn\.json" is not a readable sensor file in the acquisition format: Not a valid JSON acquisition file/ },
    { path: w('garbage.cbor', 'garbage'), reason: /^"garbage\.cbor" is not a readable sensor file in the acquisition format: / },
    { path: w('noise.wav', 'not a wav'), reason: '"noise.wav" is not a readable WAV recording: Not a readable WAV file: missing RIFF/WAVE header' },
    { path: w('columns.csv', 'a,b\nx,y\n'), reason: 'CSV: no timestamp column in the header "a,b"; name the time column timestamp, time or t (in ms)' },
    { path: w('empty.csv', ''), reason: 'CSV: the file is empty; it needs a header line such as "timestamp,accX,accY,accZ"' },
    { path: join(files, 'gone.json'), reason: 'cannot read it (ENOENT)' },
    { path: join(files, 'gone.csv'), reason: /^ENOENT: no such file or directory, open / },
  ];
}

describe('samples import of many single files', () => {
  let paths: string[];
  let goodOnes: Array<{ path: string; name: string }>;
  let badOnes: ReturnType<typeof bad>;

  beforeAll(() => {
    goodOnes = Array.from({ length: 600 }, (_, i) => good(i));
    badOnes = bad();
    // Bad files among the good ones, one each in the first, second (at its start) and third batch of 256.
    paths = goodOnes.map((g) => g.path);
    const at = [3, 17, 255, 256, 300, 511, 590];
    badOnes.forEach((b, k) => paths.splice(at[k]!, 0, b.path));
  });

  it('imports every good file and names each bad one, in the order given', async () => {
    const data = join(work, 'data');
    const store = await SampleStore.open(data, silentLogger);
    try {
      const r = await importSampleFiles(store, paths, { category: 'testing', queue: true });
      expect(r.added.map((s) => s.name)).toEqual(goodOnes.map((g) => g.name));
      expect(r.known).toEqual([]);
      expect(r.problems.map((p) => p.path)).toEqual(badOnes.map((b) => b.path));
      r.problems.forEach((p, k) => expect(p.reason).toMatch(badOnes[k]!.reason));
      expect(r.added.every((s) => s.category === 'testing' && s.state === 'queued' && s.lengthMs !== null)).toBe(true);
      expect(r.added.map((s) => s.label)).toEqual(goodOnes.map((g) => (g.name.startsWith('idle') ? 'idle' : 'wave')));

      // Each a copy of its file (a CSV as CBOR) in the data folder, with its sidecar; no temp file left.
      const owned = readdirSync(join(data, 'samples'));
      expect(owned.filter((f) => f.endsWith('.tmp'))).toEqual([]);
      expect(owned.length).toBe(2 * goodOnes.length);
      for (const [k, s] of r.added.entries()) {
        expect(existsSync(join(data, 'samples', `${s.id}.meta.json`))).toBe(true);
        if (!goodOnes[k]!.path.endsWith('.csv')) expect(readFileSync(join(data, s.file))).toEqual(readFileSync(goodOnes[k]!.path));
      }
      expect(store.count()).toBe(goodOnes.length);

      // Again: every file found (same path, same content), except the CSV files, which importCsv
      // never remembered by their source and adds again, as before.
      const again = await importSampleFiles(store, paths, { category: 'testing', queue: true });
      const csv = goodOnes.filter((g) => g.path.endsWith('.csv'));
      expect(again.added.map((s) => s.name)).toEqual(csv.map((g) => g.name));
      expect(again.known.map((s) => s.id)).toEqual(r.added.filter((_, k) => !goodOnes[k]!.path.endsWith('.csv')).map((s) => s.id));
      expect(again.problems.map((p) => p.path)).toEqual(badOnes.map((b) => b.path));
    } finally {
      await store.close();
    }
  });

  it('after a crash before a batch is committed, the next start indexes its files as they were, and the import resumes without adding any twice', async () => {
    const data = join(work, 'data-crash');
    const some = goodOnes.slice(0, 40).map((g) => g.path).filter((p) => !p.endsWith('.csv'));
    let store = await SampleStore.open(data, silentLogger);
    // The commit never happens: files and sidecars are in place, the rows are not.
    vi.spyOn(store.db, 'transaction').mockImplementationOnce(() => {
      throw new Error('power cut');
    });
    await expect(importSampleFiles(store, some, { category: 'testing', label: 'walk', queue: false })).rejects.toThrow('power cut');
    expect(store.count()).toBe(0);
    await store.close();

    store = await SampleStore.open(data, silentLogger);
    try {
      const back = store.list();
      expect(back.map((s) => s.name).sort()).toEqual(some.map((p) => p.slice(files.length + 1)).sort());
      expect(back.every((s) => s.label === 'walk' && s.category === 'testing' && s.note === null)).toBe(true);
      const again = await importSampleFiles(store, some, { category: 'testing', label: 'walk', queue: false });
      expect(again.added).toEqual([]);
      expect(again.known.map((s) => s.name)).toEqual(some.map((p) => p.slice(files.length + 1)));
      expect(store.count()).toBe(some.length);
    } finally {
      await store.close();
    }
  });

  it('when a batch cannot be indexed, the batches before it stay, none after it is placed, and a re-run adds only what is missing', async () => {
    const data = join(work, 'data-fail');
    mkdirSync(join(files, 'more'));
    // 600 files: batches of 256, 256 and 88.
    const some = Array.from({ length: 600 }, (_, i) => {
      const path = join(files, 'more', `tap.${i}.json`);
      writeFileSync(path, JSON.stringify(sensorDoc(values(1000 + i))));
      return path;
    });
    let store = await SampleStore.open(data, silentLogger);
    const real = store.db.transaction.bind(store.db);
    let commits = 0;
    // The second batch's commit fails (a disk full, say); the third is written meanwhile.
    vi.spyOn(store.db, 'transaction').mockImplementation(((fn: () => unknown) => (++commits === 2 ? () => {
      throw new Error('disk I/O error');
    } : real(fn))) as typeof store.db.transaction);
    await expect(importSampleFiles(store, some, { category: 'training', queue: false })).rejects.toThrow('disk I/O error');
    expect(store.count()).toBe(256);
    await store.close();
    // The failed batch's files were placed with their sidecars (as addBytes leaves a file the index
    // refused); nothing of the batch after it was, and no temp file is left.
    const owned = readdirSync(join(data, 'samples'));
    expect(owned.filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(owned.length).toBe(2 * 512);
    store = await SampleStore.open(data, silentLogger);
    try {
      expect(store.count()).toBe(512); // the failed batch indexed at this start, from its sidecars
      const again = await importSampleFiles(store, some, { category: 'training', queue: false });
      expect(again.known.map((x) => x.name)).toEqual(some.slice(0, 512).map((p) => p.slice(join(files, 'more').length + 1)));
      expect(again.added.map((x) => x.name)).toEqual(some.slice(512).map((p) => p.slice(join(files, 'more').length + 1)));
    } finally {
      await store.close();
    }
  });

  it('through the CLI: prints the good ones, names each bad one, counts them and exits 1', async () => {
    const picked = [goodOnes[0]!.path, badOnes[3]!.path, goodOnes[3]!.path, badOnes[0]!.path, goodOnes[2]!.path, badOnes[5]!.path, goodOnes[7]!.path];
    const r = await runCli(['samples', 'import', ...picked, '--data-dir', join(work, 'data-cli')]);
    expect(r.code).toBe(1);
    expect(r.stdout.trim().split('\n').map((l) => JSON.parse(l).name)).toEqual([goodOnes[0]!.name, goodOnes[3]!.name, goodOnes[2]!.name, goodOnes[7]!.name]);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toEqual([
      `not imported ${badOnes[3]!.path}: ${badOnes[3]!.reason as string}`,
      expect.stringMatching(/^not imported .*torn\.json: "torn\.json" is not a readable sensor file/),
      `not imported ${badOnes[5]!.path}: cannot read it (ENOENT)`,
      'Imported 4 samples, 3 not imported.',
    ]);
  });
});
