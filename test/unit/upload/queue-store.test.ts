import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { BindValue } from '../../../src-main/core/samples/db.js';
import type { NewSample } from '../../../src-main/core/samples/new-sample.js';
import { DUE_IN_GROUP, OLDEST_DUE, QueueStore } from '../../../src-main/core/upload/queue-store.js';
import { useCleanups } from '../../support/cleanups.js';
import { tempStore } from '../../support/temp-store.js';

const cleanups = useCleanups();

async function open() {
  const { dir, store } = await tempStore(cleanups, 'cd-queue-store-');
  let n = 0;
  const add = (name: string, extra: Partial<NewSample> = {}, size = 10) =>
    store.addReference({ name, kind: 'sensor', label: 'idle', category: 'training', queue: true, ...extra }, { path: join(dir, `${name}.${n++}`), bytes: size, sha256: `h${n}` });
  return { store, qs: new QueueStore(store), add };
}

describe('QueueStore.requeueInterrupted', () => {
  it('takes back the claims of processes that are gone and of none, never a live one\'s', async () => {
    const { store, add } = await open();
    const alive = new Set(['host/1/10', 'host/2/20']);
    const as = (me: string) => new QueueStore(store, { me, alive: (o) => alive.has(o) });
    for (let i = 0; i < 6; i++) add(`s${i}.cbor`);
    // Three processes each claim two samples: 1 lives on, 3 dies; two claims have no owner (an older version).
    as('host/1/10').takeBatch(Date.now(), 2, 1e9);
    as('host/3/30').takeBatch(Date.now(), 2, 1e9);
    const old = as('host/2/20').takeBatch(Date.now(), 2, 1e9)!;
    store.db.prepare('UPDATE samples SET claimed_by = NULL WHERE id IN (?, ?)').run(old.files[0]!.id, old.files[1]!.id);
    expect(store.counts()).toMatchObject({ uploading: 6, queued: 0 });
    expect(as('host/2/20').requeueInterrupted()).toBe(4);
    expect(store.db.prepare("SELECT claimed_by FROM samples WHERE state = 'uploading'").pluck().all()).toEqual(['host/1/10', 'host/1/10']);
    // Once that one is gone too, its two come back.
    alive.delete('host/1/10');
    expect(as('host/2/20').requeueInterrupted()).toBe(2);
    expect(store.counts()).toMatchObject({ uploading: 0, queued: 6 });
  });

  it('takes back its own process\'s claims only when asked to (a queue opened anew), never while it may be sending them', async () => {
    const { store, add } = await open();
    const qs = new QueueStore(store, { me: 'host/1/10', alive: () => true });
    add('a.cbor');
    qs.takeBatch(Date.now(), 1, 1e9);
    expect(qs.requeueInterrupted()).toBe(0);
    expect(qs.requeueInterrupted(true)).toBe(1);
  });
});

describe('QueueStore.takeBatch', () => {
  it('takes the oldest sample and the rest of its header group in queue order, and marks them uploading', async () => {
    const { store, qs, add } = await open();
    // Labels set by hand (not the ones the names give): x-label is per request, so one label per batch.
    const order = ['idle.1', 'wave.1', 'idle.2', 'idle.3', 'wave.2'].map((name) => add(`take-${name}.cbor`, { label: name.split('.')[0]! }));
    const batch = qs.takeBatch(Date.now(), 10, 1e9)!;
    expect(batch.headers).toEqual({ category: 'training', label: 'idle', labelFromName: false, metadata: {}, addDateId: false, allowDuplicates: false });
    expect(batch.files.map((f) => f.name)).toEqual(['take-idle.1.cbor', 'take-idle.2.cbor', 'take-idle.3.cbor']);
    expect(batch.files[0]).toMatchObject({ id: order[0]!.id, file: order[0]!.file, bytes: 10, sha256: order[0]!.sha256, attempts: 0, structuredLabels: null, kind: 'sensor', boundingBoxes: [], owned: false });
    expect(store.counts()).toMatchObject({ uploading: 3, queued: 2 });
    expect(qs.takeBatch(Date.now(), 10, 1e9)!.files.map((f) => f.name)).toEqual(['take-wave.1.cbor', 'take-wave.2.cbor']);
    expect(qs.takeBatch(Date.now(), 10, 1e9)).toBeNull();
  });

  it('puts files whose label is the one their name gives in one request, whatever the label, and keeps hand-set labels apart', async () => {
    const { qs, add } = await open();
    add('idle.1.cbor', { label: 'idle' });
    add('door knock (1).wav', { kind: 'audio', label: 'door knock ' });
    add('x.1.cbor', { label: 'idle' }); // set by hand: not what "x.1.cbor" gives
    add('(odd).cbor', { label: null }); // the name gives no label: the platform stores none either
    add('wave.2.cbor', { label: 'wave' });
    add('y.2.cbor', { label: 'wave' });
    const first = qs.takeBatch(Date.now(), 10, 1e9)!;
    expect(first.headers).toMatchObject({ labelFromName: true });
    expect(first.files.map((f) => f.name)).toEqual(['idle.1.cbor', 'door knock (1).wav', '(odd).cbor', 'wave.2.cbor']);
    expect(qs.takeBatch(Date.now(), 10, 1e9)).toMatchObject({ headers: { label: 'idle', labelFromName: false }, files: [{ name: 'x.1.cbor' }] });
    expect(qs.takeBatch(Date.now(), 10, 1e9)).toMatchObject({ headers: { label: 'wave', labelFromName: false }, files: [{ name: 'y.2.cbor' }] });
  });

  it('lets images with different boxes share a request: boxes travel per file', async () => {
    const { qs, add } = await open();
    const box = { label: 'cat', x: 1, y: 2, width: 3, height: 4 };
    add('cat.1.png', { kind: 'image', label: 'cat', boundingBoxes: [box] });
    add('cat.2.png', { kind: 'image', label: 'cat', boundingBoxes: [] });
    add('cat.3.cbor', { label: 'cat', boundingBoxes: [box] }); // not an image: the index keeps no boxes
    const batch = qs.takeBatch(Date.now(), 10, 1e9)!;
    expect(batch.files.map((f) => [f.name, f.boundingBoxes])).toEqual([['cat.1.png', [box]], ['cat.2.png', []], ['cat.3.cbor', []]]);
  });

  it('keeps apart samples whose metadata or flags differ, and honours the file and byte limits', async () => {
    const { qs, add } = await open();
    add('a.1.cbor', { metadata: { subject: 'ana' } });
    add('a.2.cbor', { metadata: { subject: 'bo' } });
    add('a.3.cbor', { metadata: { subject: 'ana' }, allowDuplicates: true });
    for (let i = 4; i < 9; i++) add(`a.${i}.cbor`, { metadata: { subject: 'ana' } }, 40);
    expect(qs.takeBatch(Date.now(), 3, 1e9)!.files.map((f) => f.name)).toEqual(['a.1.cbor', 'a.4.cbor', 'a.5.cbor']);
    expect(qs.takeBatch(Date.now(), 10, 100)!.files.map((f) => f.name)).toEqual(['a.2.cbor']);
    expect(qs.takeBatch(Date.now(), 10, 100)!.files.map((f) => f.name)).toEqual(['a.3.cbor']);
    // 40 + 40 fit in 100 bytes, a third would not.
    expect(qs.takeBatch(Date.now(), 10, 100)!.files.map((f) => f.name)).toEqual(['a.6.cbor', 'a.7.cbor']);
  });

  it('sends a file name once per request and leaves samples that are not due yet', async () => {
    const { qs, add } = await open();
    const first = add('same.cbor');
    add('same.cbor');
    const later = add('later.cbor');
    qs.markRetry(later.id, 'try again', Date.now() + 60_000);
    expect(qs.takeBatch(Date.now(), 10, 1e9)!.files.map((f) => f.id)).toEqual([first.id]);
    expect(qs.takeBatch(Date.now(), 10, 1e9)!.files.map((f) => f.name)).toEqual(['same.cbor']);
    expect(qs.takeBatch(Date.now(), 10, 1e9)).toBeNull();
    expect(qs.nextDueAt()).toBeGreaterThan(Date.now());
  });

  it('walks the queue-order index instead of sorting every queued sample for each batch', async () => {
    const { store } = await open();
    const plan = (sql: string, ...args: BindValue[]) => (store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as Array<{ detail: string }>).map((r) => r.detail).join('; ');
    for (const p of [plan(OLDEST_DUE, 0), plan(DUE_IN_GROUP, 0, 'training', '{}', 0, 0, 10)]) {
      expect(p).toContain('samples_queue_order');
      expect(p).not.toContain('TEMP B-TREE');
    }
  });
});

describe('QueueStore.markUploadedMany', () => {
  it('records every verdict of a request, the platform\'s note beside the sample\'s own', async () => {
    const { store, qs, add } = await open();
    const [a, b] = [add('a.1.cbor'), add('a.2.cbor')];
    qs.takeBatch(Date.now(), 10, 1e9);
    qs.markUploadedMany([{ id: a.id, platformSampleId: 41, note: null }, { id: b.id, platformSampleId: null, note: 'Already on the platform (x).' }]);
    expect(store.get(a.id)).toMatchObject({ state: 'uploaded', platformSampleId: 41, note: null, error: null, uploadedAt: expect.any(String) });
    expect(store.get(b.id)).toMatchObject({ state: 'uploaded', platformSampleId: null, note: 'Already on the platform (x).' });
    qs.markUploadedMany([]);
  });

  it('leaves the search index alone for verdicts without a note, and makes a note searchable', async () => {
    const { store, qs, add } = await open();
    const [a, b] = [add('s.1.cbor'), add('s.2.cbor')];
    qs.takeBatch(Date.now(), 10, 1e9);
    // Each write to the FTS5 index adds a segment (a row of samples_text_data) until it merges them.
    const segments = () => (store.db.prepare('SELECT count(*) AS n FROM samples_text_data').get() as { n: number }).n;
    const hits = (text: string) => (store.db.prepare('SELECT count(*) AS n FROM samples_text WHERE samples_text MATCH ?').get(`"${text}"`) as { n: number }).n;
    const before = segments();
    qs.markUploadedMany([{ id: a.id, platformSampleId: 7, note: null }]);
    expect(segments()).toBe(before);
    qs.markUploadedMany([{ id: b.id, platformSampleId: null, note: 'Already on the platform (dup).' }]);
    expect(segments()).toBeGreaterThan(before);
    expect(hits('Already on')).toBe(1);
    expect([store.get(a.id).state, store.get(b.id).state]).toEqual(['uploaded', 'uploaded']);
  });

  it('has the sidecars of owned samples rewritten, and looks up none for files referenced where they lie', async () => {
    const { store, qs, add } = await open();
    const [a, b, c] = [add('r.1.cbor'), add('r.2.cbor'), add('r.3.cbor')];
    const changed = vi.spyOn(store, 'changed');
    qs.markUploadedMany([
      { id: a.id, platformSampleId: 1, note: null, owned: false },
      { id: b.id, platformSampleId: 2, note: null, owned: true },
      { id: c.id, platformSampleId: 3, note: null },
    ]);
    expect(changed.mock.calls).toEqual([[[b.id, c.id]]]);
    expect([a, b, c].map((s) => store.get(s.id).state)).toEqual(['uploaded', 'uploaded', 'uploaded']);
  });
});
