import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src-main/core/log.js';
import { SampleStore } from '../../../src-main/core/samples/sample-store.js';
import { BulkReads, importFiles, type BulkOutcome } from '../../../src-main/core/import/bulk-import.js';
import { collectFiles, type ImportOptions } from '../../../src-main/core/import/import-files.js';
import { encodeCbor, sensorDoc, wav } from '../../support/ingestion-server/fixtures.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const options: ImportOptions = { category: 'training', label: undefined, metadata: {}, boundingBoxes: [], addDateId: false, allowDuplicates: false, queue: true };

async function world() {
  const root = await mkdtemp(join(tmpdir(), 'cd-bulk-import-'));
  const files = join(root, 'files');
  await mkdir(files);
  const store = await SampleStore.open(join(root, 'data'), createLogger(() => {}));
  cleanups.push(() => rm(root, { recursive: true, force: true }), () => store.close());
  return { files, store };
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('importFiles (bulk)', () => {
  it('indexes files across chunks, keeps their bytes for the upload, and finds them all again on a re-run', async () => {
    const { files, store } = await world();
    const docs = Array.from({ length: 300 }, (_, i) => encodeCbor(sensorDoc([[i, 1], [i, 2]])));
    for (let i = 0; i < docs.length; i++) await writeFile(join(files, `${i % 2 ? 'idle' : 'wave'}.${i}.cbor`), docs[i]!);
    const big = wav(3000, 48_000); // over the 64 KiB one-read size
    await writeFile(join(files, 'yes.1.wav'), big);
    const { files: paths } = await collectFiles([files, join(files, 'yes.1.wav')]);
    expect(paths).toHaveLength(301); // the file given twice is taken once

    const chunks: BulkOutcome[][] = [];
    const first = await importFiles(store, paths, options, (c) => chunks.push(c));
    expect(chunks.map((c) => c.length)).toEqual([256, 45]);
    expect(first.every((o) => o.status === 'added' && o.state === 'queued')).toBe(true);
    expect(store.counts().queued).toBe(301);
    const wavSample = store.get((first.find((o) => o.path.endsWith('yes.1.wav')) as { id: string }).id);
    expect(wavSample).toMatchObject({ name: 'yes.1.wav', kind: 'audio', label: 'yes', bytes: big.length, sha256: sha(big) });
    expect((await store.readBytes(wavSample)).equals(big)).toBe(true);
    const some = store.get((first[7] as { id: string }).id);
    expect(some.label).toBe(some.name.split('.')[0]);

    const again = await importFiles(store, paths, options, () => {});
    expect(again.map((o) => (o.status === 'refused' ? '' : o.id))).toEqual(first.map((o) => (o.status === 'refused' ? '' : o.id)));
    expect(again.every((o) => o.status === 'known')).toBe(true);
    expect(store.counts().queued).toBe(301);
  });

  it('takes its files from a reader started before the index was opened, and closes it', async () => {
    const root = await mkdtemp(join(tmpdir(), 'cd-bulk-early-'));
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    const files = join(root, 'files');
    await mkdir(files);
    const docs = Array.from({ length: 270 }, (_, i) => encodeCbor(sensorDoc([[i, 3], [i, 4]])));
    for (let i = 0; i < docs.length; i++) await writeFile(join(files, `early.${i}.cbor`), docs[i]!);
    const { files: paths } = await collectFiles([files]);
    const reads = new BulkReads(options);
    reads.start(paths); // reading, with no index yet
    const store = await SampleStore.open(join(root, 'data'), createLogger(() => {}));
    cleanups.push(() => store.close());
    const out = await importFiles(store, paths, options, () => {}, new Map(), reads);
    expect(out.map((o) => o.status)).toEqual(Array(270).fill('added'));
    const first = store.get((out[0] as { id: string }).id);
    expect(first.sha256).toBe(sha(docs[Number(first.name.split('.')[1])]!));
    await expect(reads.take(0)).rejects.toThrow(/closed/);
  });

  it('refuses a file that vanished after it was listed and signs unsigned files when given a key', async () => {
    const { files, store } = await world();
    const doc = encodeCbor(sensorDoc([[1, 2], [3, 4]]));
    await writeFile(join(files, 'a.1.cbor'), doc);
    const out = await importFiles(store, [join(files, 'a.1.cbor'), join(files, 'gone.1.cbor')], { ...options, hmacKey: 'secret', label: 'knock' }, () => {});
    expect(out[1]).toMatchObject({ status: 'refused', reason: expect.stringContaining('ENOENT') });
    const signed = store.get((out[0] as { id: string }).id);
    expect(signed).toMatchObject({ label: 'knock', note: 'signed with the project HMAC key on import' });
    expect(signed.sha256).not.toBe(sha(doc));
  });
});
