import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src-main/core/log.js';
import { SampleStore } from '../../../src-main/core/samples/sample-store.js';
import { importFiles, type BulkOutcome, type IndexedOutcome } from '../../../src-main/core/import/bulk-import.js';
import type { ImportOptions } from '../../../src-main/core/import/import-files.js';
import { encodeCbor, png, sensorDoc } from '../../support/ingestion-server/fixtures.js';

// retake.ts through importFiles, on the real index: what a second `capture-desk upload` of the same files does to their samples.
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const base: ImportOptions = { category: 'training', label: undefined, metadata: {}, boundingBoxes: [], addDateId: false, allowDuplicates: false, queue: true, retake: true };

async function world() {
  const root = await mkdtemp(join(tmpdir(), 'cd-retake-'));
  const files = join(root, 'files');
  await mkdir(files);
  const store = await SampleStore.open(join(root, 'data'), silentLogger);
  cleanups.push(() => rm(root, { recursive: true, force: true }), () => store.close());
  await writeFile(join(files, 'wave.1.cbor'), encodeCbor(sensorDoc([[1, 2]])));
  await writeFile(join(files, 'cup.1.png'), png());
  const paths = [join(files, 'wave.1.cbor'), join(files, 'cup.1.png')];
  const run = async (o: Partial<ImportOptions>) => (await importFiles(store, paths, { ...base, ...o }, () => {})) as IndexedOutcome[];
  return { store, run };
}

const boxes = [{ label: 'cup', x: 1, y: 2, width: 3, height: 4 }];

describe('retake: a known file not yet on the platform takes the words of the run that sends it', () => {
  it('replaces label, category, metadata, boxes (images only) and flags, and says what changed', async () => {
    const { store, run } = await world();
    await run({ label: 'AAA', metadata: { a: '1', b: '2' } });
    const again = await run({ label: 'BBB', category: 'testing', metadata: { b: '2', a: '1' }, boundingBoxes: boxes, addDateId: true });
    expect(again.map((o) => o.status)).toEqual(['known', 'known']);
    // Metadata with its keys in another order is the same metadata.
    expect(again[0]!.retaken).toEqual({ changed: ['label', 'category', 'flags'], now: { label: 'BBB', category: 'testing' } });
    expect(again[1]!.retaken).toEqual({ changed: ['label', 'category', 'bounding boxes', 'flags'], now: { label: 'BBB', category: 'testing' } });
    const [wave, cup] = again.map((o) => store.get(o.id));
    expect(wave).toMatchObject({ label: 'BBB', category: 'testing', boundingBoxes: [] });
    expect(cup).toMatchObject({ label: 'BBB', category: 'testing', boundingBoxes: boxes });
    // The same words again: nothing to say.
    expect((await run({ label: 'BBB', category: 'testing', metadata: { a: '1', b: '2' }, boundingBoxes: boxes, addDateId: true })).map((o) => o.retaken)).toEqual([undefined, undefined]);
  });

  it('leaves a sample in flight alone, and reports one on the platform under other words without changing it', async () => {
    const { store, run } = await world();
    const [wave, cup] = await run({ label: 'AAA' });
    store.db.prepare("UPDATE samples SET state = 'uploading' WHERE id = ?").run(wave!.id);
    store.db.prepare("UPDATE samples SET state = 'uploaded', note = 'Already on the platform (An item with this hash already exists (ID 12)).' WHERE id = ?").run(cup!.id);
    const again: BulkOutcome[] = await run({ label: 'BBB' });
    expect(again[0]).toMatchObject({ status: 'known', state: 'uploading' });
    expect((again[0] as IndexedOutcome).retaken).toBeUndefined();
    expect(store.get(wave!.id).label).toBe('AAA');
    // Refused by the platform as a copy of someone else's sample: its words there are unknown here.
    expect((again[1] as IndexedOutcome).onPlatform).toEqual({ there: null, platformSampleId: 12, asked: { label: 'BBB', category: 'training' } });
    expect(store.get(cup!.id).label).toBe('AAA');
  });

  it('makes the signed copy again for another key, and drops it for no key', async () => {
    const { store, run } = await world();
    const [one] = await run({ hmacKey: 'key-one' });
    expect(store.get(one!.id).note).toContain('signed with the project HMAC key');
    const [two] = await run({ hmacKey: 'key-two' });
    expect(two).toMatchObject({ status: 'added', retaken: { changed: ['HMAC signing'] } });
    expect(() => store.get(one!.id)).toThrow();
    // The same key again finds the copy it made.
    expect((await run({ hmacKey: 'key-two' }))[0]).toMatchObject({ status: 'known', id: two!.id });
    const [none] = await run({});
    expect(none).toMatchObject({ status: 'added', retaken: { changed: ['HMAC signing'] } });
    expect(store.get(none!.id).note).toBeNull();
  });
});
