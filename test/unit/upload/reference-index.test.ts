import { describe, expect, it } from 'vitest';
import { ReferenceIndex, referenceKey, type ReferenceDefaults } from '../../../src-main/core/samples/reference-index.js';
import { useCleanups } from '../../support/cleanups.js';
import { tempStore } from '../../support/temp-store.js';

const cleanups = useCleanups();

async function open() {
  const { store } = await tempStore(cleanups, 'cd-reference-index-');
  return { store, index: new ReferenceIndex(store.db) };
}

const defaults: ReferenceDefaults = { category: 'testing', metadata: { subject: 'ana' }, boundingBoxes: [], addDateId: true, allowDuplicates: false, queue: true };

describe('ReferenceIndex', () => {
  it('inserts a chunk in one statement with the same columns a single reference gets', async () => {
    const { store, index } = await open();
    const [id] = index.insert([{ path: '/data/idle.1.cbor', name: 'idle.1.cbor', kind: 'sensor', label: 'idle', bytes: 1650, sha256: 'abc' }], defaults);
    const single = store.addReference({ name: 'idle.2.cbor', kind: 'sensor', label: 'idle', category: 'testing', metadata: { subject: 'ana' }, addDateId: true, queue: true },
      { path: '/data/idle.2.cbor', bytes: 1650, sha256: 'def' });
    const bulk = store.get(id!);
    const strip = (s: typeof bulk) => ({ ...s, id: '', name: '', file: '', sha256: '', created: '' });
    expect(strip(bulk)).toEqual(strip(single));
    expect(bulk).toMatchObject({ name: 'idle.1.cbor', file: '/data/idle.1.cbor', sha256: 'abc', state: 'queued', bytes: 1650 });
    expect(store.db.prepare('SELECT owned, source_path, source_sha256 FROM samples WHERE id = ?').get(id!)).toEqual({ owned: 0, source_path: '/data/idle.1.cbor', source_sha256: 'abc' });
  });

  it('keeps unlabeled files unlabeled and leaves them local when not queued', async () => {
    const { store, index } = await open();
    const [id] = index.insert([{ path: '/d/x.wav', name: 'x.wav', kind: 'audio', label: null, bytes: 3, sha256: 'h' }], { ...defaults, queue: false });
    expect(store.get(id!)).toMatchObject({ label: null, kind: 'audio', state: 'local' });
    expect(index.insert([], defaults)).toEqual([]);
  });

  it('finds, per path and content, the newest sample made from it with one lookup', async () => {
    const { index } = await open();
    const ref = (path: string, sha256: string) => ({ path, name: 'a.cbor', kind: 'sensor' as const, label: 'a', bytes: 1, sha256 });
    const [old] = index.insert([ref('/d/a.cbor', 'h1')], defaults);
    const [changed] = index.insert([ref('/d/a.cbor', 'h2')], defaults);
    const [newer] = index.insert([ref('/d/a.cbor', 'h1')], defaults);
    const found = index.find(['/d/a.cbor', '/d/none.cbor']);
    expect(found.get(referenceKey('/d/a.cbor', 'h1'))).toEqual({ id: newer, state: 'queued' });
    expect(found.get(referenceKey('/d/a.cbor', 'h2'))).toEqual({ id: changed, state: 'queued' });
    expect(found.size).toBe(2);
    expect(old).not.toBe(newer);
    expect(index.find([]).size).toBe(0);
  });
});
