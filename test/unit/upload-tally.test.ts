import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UploadTally } from '../../src-main/cli/upload-tally.js';
import type { BulkOutcome } from '../../src-main/core/import/bulk-import.js';
import { QueueStore } from '../../src-main/core/upload/queue-store.js';
import { useCleanups } from '../support/cleanups.js';
import { tempStore } from '../support/temp-store.js';

const cleanups = useCleanups();

async function world() {
  const { dir, store } = await tempStore(cleanups, 'cd-tally-');
  let n = 0;
  const add = (name: string) =>
    store.addReference({ name, kind: 'sensor', label: 'idle', category: 'training', queue: true }, { path: join(dir, `${name}.${n++}`), bytes: 10, sha256: `h${n}` });
  return { store, qs: new QueueStore(store), add };
}

const added = (id: string): BulkOutcome => ({ path: `/f/${id}`, status: 'added', id, state: 'queued' });

describe('UploadTally', () => {
  it("counts this run's files only, not the samples earlier runs left in the data folder", async () => {
    const { store, qs, add } = await world();
    const earlier = [add('old.1.cbor'), add('old.2.cbor')];
    qs.markUploadedMany(earlier.map((s) => ({ id: s.id, platformSampleId: 1, note: null })));
    const mine = [add('new.1.cbor'), add('new.2.cbor'), add('new.3.cbor')];
    const stored = new Set<string>();
    const tally = new UploadTally(store, stored);
    tally.add(mine.map((s) => added(s.id)));
    expect(tally.counts()).toEqual({ uploaded: 0, present: 0, notUploaded: 0 });

    stored.add(mine[0]!.id);
    qs.markUploadedMany([{ id: mine[0]!.id, platformSampleId: 5, note: null }]);
    qs.markRejected(mine[1]!.id, 'bad file');
    tally.changed([mine[0]!.id, mine[1]!.id, earlier[0]!.id]);
    expect(tally.counts()).toEqual({ uploaded: 1, present: 0, notUploaded: 1 });
    // A rejected file sent again (a later pass) and uploaded moves from "not" to uploaded.
    stored.add(mine[1]!.id);
    qs.markUploadedMany([{ id: mine[1]!.id, platformSampleId: 6, note: null }]);
    tally.changed([mine[1]!.id]);
    expect(tally.counts()).toEqual({ uploaded: 2, present: 0, notUploaded: 0 });
    expect(store.counts().uploaded).toBe(4);
  });

  it('counts a file stored for this run as uploaded without reading it back, as the summary counts it (even when its mark was not recorded)', async () => {
    const { store, qs, add } = await world();
    const [a, b] = [add('a.1.cbor'), add('b.1.cbor')];
    const stored = new Set<string>();
    const tally = new UploadTally(store, stored);
    tally.add([added(a.id), added(b.id)]);
    const read: string[][] = [];
    const verdicts = store.verdicts.bind(store);
    store.verdicts = (ids) => (read.push([...ids]), verdicts(ids));
    // a: the platform stored it, and the disk refused to record that (still 'uploading' in the index); b: rejected.
    qs.takeBatch(Date.now(), 10, 1e9);
    stored.add(a.id);
    qs.markRejected(b.id, 'bad file');
    tally.changed([a.id, b.id]);
    expect(tally.counts()).toEqual({ uploaded: 1, present: 0, notUploaded: 1 });
    expect(read).toEqual([[b.id]]);
  });

  it('counts files an earlier run uploaded as already present, and a change reported before the import reported the file', async () => {
    const { store, qs, add } = await world();
    const [a, b] = [add('a.1.cbor'), add('b.1.cbor')];
    const tally = new UploadTally(store, new Set([b.id]));
    qs.markUploadedMany([{ id: b.id, platformSampleId: 2, note: null }]);
    tally.changed([b.id]); // settled while a big file of the same chunk was still being indexed
    expect(tally.counts()).toEqual({ uploaded: 0, present: 0, notUploaded: 0 });
    tally.add([{ path: '/f/a', status: 'known', id: a.id, state: 'uploaded' }, added(b.id)]);
    expect(tally.counts()).toEqual({ uploaded: 1, present: 1, notUploaded: 0 });
  });

  it('counts a copy the platform refused as already there as present, not uploaded, as the summary does', async () => {
    const { store, qs, add } = await world();
    const [a, b] = [add('a.1.cbor'), add('b.1.cbor')];
    const tally = new UploadTally(store, new Set());
    tally.add([added(a.id), added(b.id)]);
    qs.markUploadedMany([a, b].map((s) => ({ id: s.id, platformSampleId: null, note: 'Already on the platform (duplicate).' })));
    tally.changed([a.id, b.id]);
    expect(tally.counts()).toEqual({ uploaded: 0, present: 2, notUploaded: 0 });
  });
});
