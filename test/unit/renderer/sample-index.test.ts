// The renderer's one owner of sample records, against the real core through the renderer's own
// Api client: every change the core announces reaches the views that show the sample (the
// added-files list, the sample view, the table, the class balance), and nothing else is asked for.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MethodInput } from '../../../src-main/core/contract/contract.js';
import { createCore, type Core } from '../../../src-main/core/app.js';
import { createLogger } from '../../../src-main/core/log.js';
import { memoryKeychain } from '../../../src-main/core/secrets/keychain.js';
import { createApi, type Api, type ConnectionStatus } from '../../../src-renderer/lib/api/client.js';
import { addedSampleText } from '../../../src-renderer/lib/samples/added-file.js';
import { Imports, type ImportItem } from '../../../src-renderer/lib/state/imports.svelte.js';
import { SampleIndex } from '../../../src-renderer/lib/state/sample-index.svelte.js';
import { SamplesState } from '../../../src-renderer/lib/state/samples.svelte.js';
import { fixedPorts } from '../../support/fake-hardware.js';
import { encodeCbor, sensorDoc } from '../../support/ingestion-server/fixtures.js';

let work: string;
let core: Core;
let api: Api;
/** Every samples.list the renderer sent, with its input. */
const lists: Array<MethodInput<'samples.list'>> = [];
const statusListeners = new Set<(s: ConnectionStatus) => void>();
const setStatus = (s: ConnectionStatus) => statusListeners.forEach((l) => l(s));

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'cd-sample-index-'));
  core = await createCore({ dataDir: join(work, 'data'), shell: 'browser', uploads: false, hardware: { ports: fixedPorts([]), keychain: memoryKeychain() }, log: createLogger(() => {}) });
  api = createApi({
    call: (method, input) => {
      if (method === 'samples.list') lists.push(input as MethodInput<'samples.list'>);
      return core.dispatch(method, input);
    },
    onEvent: (l) => core.onEvent(l),
    onStatus: (l) => (statusListeners.add(l), () => statusListeners.delete(l)),
  });
  await api.call('settings.set', { qualityHold: 'off' });
});
afterAll(async () => {
  await core.close();
  rmSync(work, { recursive: true, force: true });
});

let index: SampleIndex;
let unsubscribe: () => void;
beforeEach(() => {
  index = new SampleIndex(api);
  unsubscribe = index.subscribe();
  lists.length = 0;
});
afterEach(() => unsubscribe());

let seed = 0;
const file = (name: string) => new File([encodeCbor(sensorDoc([[++seed, 1], [seed, 2], [seed, 3]]))], name);

/** The core coalesces samples.changed over 100 ms; then the index asks and the answer lands. */
async function told(check: () => void): Promise<void> {
  await vi.waitFor(async () => {
    await index.settled();
    check();
  }, { timeout: 3000, interval: 20 });
}

/** Past the core's coalescing of samples.changed, and whatever the index asked for then. */
async function quiet(): Promise<void> {
  await new Promise((r) => setTimeout(r, 300));
  await index.settled();
}

const rowText = (imports: Imports, item: ImportItem) => {
  const s = imports.sampleOf(item);
  return s ? addedSampleText(s, item.known) : 'deleted since';
};

describe('the sample index', () => {
  it('keeps the added-files list current: category, label, state and deletion (issue: "hum-take.wav noise · training" after "Set category → testing")', async () => {
    const imports = new Imports(api, index);
    imports.queue = false;
    await imports.add([file('hum.1.cbor'), file('hum.2.cbor')]);
    const [a, b] = imports.items as [ImportItem, ImportItem];
    expect(rowText(imports, a)).toBe('hum · training · local');

    await api.call('samples.update', { ids: [a.sample!.id], category: 'testing', label: 'noise' });
    await told(() => expect(rowText(imports, a)).toBe('noise · testing · local'));
    expect(rowText(imports, b)).toBe('hum · training · local');

    await api.call('queue.enqueue', { ids: [b.sample!.id] });
    await told(() => expect(rowText(imports, b)).toBe('hum · training · queued'));

    // samples.move of a sample not yet uploaded is a local change, and is announced like one.
    await api.call('samples.move', { id: b.sample!.id, newCategory: 'testing' });
    await told(() => expect(rowText(imports, b)).toBe('hum · testing · queued'));

    await api.call('samples.delete', { ids: [a.sample!.id] });
    await told(() => expect(rowText(imports, a)).toBe('deleted since'));
    expect(index.isGone(a.sample!.id)).toBe(true);
    expect(index.get(a.sample!.id)?.label).toBe('noise'); // the sample view says what was deleted
  });

  it('asks only for the samples it holds, and nothing once they are released', async () => {
    const imports = new Imports(api, index);
    imports.queue = false;
    await imports.add([file('walk.1.cbor')]);
    const held = imports.items[0]!.sample!;
    const other = await api.call('samples.addFile', { name: 'idle.9.cbor', bytes: new Uint8Array(encodeCbor(sensorDoc())), category: 'training' });
    await quiet();
    lists.length = 0;

    await api.call('samples.update', { ids: [other.id], label: 'rest' });
    await quiet();
    expect(lists).toEqual([]); // a change to a sample nobody shows by id costs nothing

    await api.call('samples.update', { ids: [held.id, other.id], label: 'run' });
    await told(() => expect(index.get(held.id)?.label).toBe('run'));
    expect(lists).toEqual([{ ids: [held.id], limit: 1 }]);

    imports.clearFinished();
    expect(index.get(held.id)).toBeUndefined();
    lists.length = 0;
    await api.call('samples.update', { ids: [held.id], label: 'jog' });
    await quiet();
    expect(lists).toEqual([]);
  });

  it('a drop of files asks for none of the samples the import just returned', async () => {
    // An index that hears no samples.changed (the core announces the additions): only hold itself could ask.
    const deaf = new SampleIndex(api);
    const imports = new Imports(api, deaf);
    imports.queue = false;
    await imports.add(Array.from({ length: 20 }, (_, i) => file(`drop.${i}.cbor`)));
    await deaf.settled();
    expect(lists).toEqual([]); // the answers are current: no samples.list for the 20 samples just added
    expect(imports.items.map((i) => rowText(imports, i))).toEqual(Array.from({ length: 20 }, () => 'drop · training · local'));
    imports.dispose();
  });

  it('a change announced while an import runs is asked for when its samples are held', async () => {
    const s = await api.call('samples.addFile', { name: 'race.1.cbor', bytes: new Uint8Array(encodeCbor(sensorDoc([[5, 5]]))), category: 'training' });
    const t = await api.call('samples.addFile', { name: 'race.2.cbor', bytes: new Uint8Array(encodeCbor(sensorDoc([[6, 6]]))), category: 'training' });
    await quiet();
    const watch = index.watch(); // the call starts; `s` and `t` are what it will answer, `s` changes before the answer is held
    await api.call('samples.update', { ids: [s.id], label: 'relabelled' });
    await quiet();
    lists.length = 0;
    const release = index.hold([s, t], watch);
    expect(index.get(s.id)?.label).toBe('race');
    await index.settled();
    expect(index.get(s.id)?.label).toBe('relabelled');
    expect(lists).toEqual([{ ids: [s.id], limit: 1 }]);
    release();
  });

  it('a sample view opened from an old row still shows the sample as it is now', async () => {
    const s = await api.call('samples.addFile', { name: 'tap.1.cbor', bytes: new Uint8Array(encodeCbor(sensorDoc([[7, 7]]))), category: 'training' });
    await api.call('samples.update', { ids: [s.id], label: 'knock' });
    // The row the view is opened from was read before the relabel; holding it asks again at once.
    const release = index.hold([s]);
    expect(index.get(s.id)?.label).toBe('tap');
    await index.settled();
    expect(index.get(s.id)?.label).toBe('knock');
    release();
  });

  it('two holders of one sample: it stays followed until both let go', async () => {
    const s = await api.call('samples.addFile', { name: 'two.1.cbor', bytes: new Uint8Array(encodeCbor(sensorDoc([[8, 8]]))), category: 'training' });
    const first = index.hold([s]);
    const second = index.hold([s]);
    first();
    first(); // releasing twice counts once
    await api.call('samples.update', { ids: [s.id], category: 'testing' });
    await told(() => expect(index.get(s.id)?.category).toBe('testing'));
    second();
    expect(index.get(s.id)).toBeUndefined();
  });

  it('tells list views of every change, and after a reconnect asks again for everything it holds', async () => {
    const samples = new SamplesState(api, index);
    const offPage = samples.subscribe();
    const heard: Array<readonly string[] | null> = [];
    const offHeard = index.onChange((c) => heard.push(c));
    try {
      const s = await api.call('samples.addFile', { name: 'page.1.cbor', bytes: new Uint8Array(encodeCbor(sensorDoc([[9, 9]]))), category: 'training' });
      await vi.waitFor(() => expect(heard.flat()).toContain(s.id), { timeout: 3000 });
      await vi.waitFor(() => expect(samples.list.some((x) => x.id === s.id)).toBe(true), { timeout: 3000 });

      const release = index.hold([s]);
      await quiet();
      lists.length = 0;
      heard.length = 0;
      setStatus('closed');
      setStatus('open');
      expect(heard).toEqual([null]);
      await index.settled();
      expect(lists.some((l) => l.ids?.includes(s.id))).toBe(true);
      release();
    } finally {
      offPage();
      offHeard();
    }
  });

  it('a burst of changes costs one request at a time, the last one asking for what is still due', async () => {
    const made = await Promise.all([1, 2, 3].map((i) => api.call('samples.addFile', { name: `burst.${i}.cbor`, bytes: new Uint8Array(encodeCbor(sensorDoc([[i * 11, 1]]))), category: 'training' })));
    const release = index.hold(made);
    await quiet();
    lists.length = 0;
    for (const s of made) await api.call('samples.update', { ids: [s.id], label: 'burst-two' });
    await told(() => expect(made.map((s) => index.get(s.id)?.label)).toEqual(['burst-two', 'burst-two', 'burst-two']));
    expect(lists.length).toBeLessThanOrEqual(2);
    release();
  });
});
