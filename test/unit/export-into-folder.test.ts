// An export into a folder that already holds things loses none of them: its info.labels entries
// are kept (the new ones after them), no file there is written over (a name in use gets a number),
// a second export of the same samples lands on the same files, a cancel removes only what this
// export made, and an info.labels that cannot be read stops the export before anything is written.
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src-main/core/log.js';
import { exportSamples } from '../../src-main/core/samples/exchange.js';
import { SampleStore } from '../../src-main/core/samples/sample-store.js';

let stores: SampleStore[] = [];
afterEach(async () => {
  await Promise.all(stores.map((s) => s.close()));
  stores = [];
});

async function world() {
  const root = await mkdtemp(join(tmpdir(), 'cd-export-into-'));
  const store = await SampleStore.open(join(root, 'data'), silentLogger);
  stores.push(store);
  await store.addBytes({ name: 'w.cbor', kind: 'image', label: 'new-label', category: 'testing' }, Buffer.from([0xff, 0xd8, 1]));
  await store.addBytes({ name: 'x.jpg', kind: 'image', label: 'x', category: 'testing' }, Buffer.from([0xff, 0xd8, 2]));
  const out = join(root, 'out');
  await mkdir(join(out, 'testing'), { recursive: true });
  // What a person had there: their own file under a name the export will want, and its labels.
  await writeFile(join(out, 'testing', 'w.cbor'), 'recorded elsewhere');
  await writeFile(join(out, 'info.labels'), JSON.stringify({ version: 1, files: [{ path: 'testing/w.cbor', category: 'testing', label: { type: 'label', label: 'precious-label' } }] }));
  return { store, out };
}
const labelsIn = async (out: string) =>
  (JSON.parse(await readFile(join(out, 'info.labels'), 'utf8')) as { files: Array<{ path: string; label: { label?: string } }> }).files.map((f) => [f.path, f.label.label]);

describe('export into a folder that holds files already', () => {
  it('keeps the entries and files there, numbering its own; a second export lands on the same files', async () => {
    const { store, out } = await world();
    expect(await exportSamples(store, store.list({}), out)).toEqual({ files: 2, kept: 1 });
    expect(await readFile(join(out, 'testing', 'w.cbor'), 'utf8')).toBe('recorded elsewhere');
    expect((await readdir(join(out, 'testing'))).sort()).toEqual(['w-2.cbor', 'w.cbor', 'x.jpg']);
    expect(await labelsIn(out)).toEqual([['testing/w.cbor', 'precious-label'], ['testing/w-2.cbor', 'new-label'], ['testing/x.jpg', 'x']]);

    // Again: the same bytes are found under the names they got, nothing is doubled.
    expect(await exportSamples(store, store.list({}), out)).toEqual({ files: 2, kept: 1 });
    expect((await readdir(join(out, 'testing'))).sort()).toEqual(['w-2.cbor', 'w.cbor', 'x.jpg']);
    expect(await labelsIn(out)).toEqual([['testing/w.cbor', 'precious-label'], ['testing/w-2.cbor', 'new-label'], ['testing/x.jpg', 'x']]);
  });

  it('a cancel removes only the files this export made', async () => {
    const { store, out } = await world();
    await exportSamples(store, store.list({}).filter((s) => s.name === 'x.jpg'), out);
    const stop = new AbortController();
    const samples = store.list({});
    await expect(
      exportSamples(store, samples, out, { signal: stop.signal, onProgress: (done) => (done === samples.length ? stop.abort() : undefined) }),
    ).rejects.toThrow(/cancelled; the files it had written were removed/);
    // x.jpg was there before this export (from the first): it stays; the new w-2.cbor went.
    expect((await readdir(join(out, 'testing'))).sort()).toEqual(['w.cbor', 'x.jpg']);
    expect(await readFile(join(out, 'testing', 'w.cbor'), 'utf8')).toBe('recorded elsewhere');
    expect(await labelsIn(out)).toEqual([['testing/w.cbor', 'precious-label'], ['testing/x.jpg', 'x']]);
  });

  it('stops before writing anything when the info.labels there cannot be read', async () => {
    const { store, out } = await world();
    await writeFile(join(out, 'info.labels'), '{ "version": 1, "files": [');
    await expect(exportSamples(store, store.list({}), out)).rejects.toThrow(
      /^Cannot export into .*: it holds an info\.labels that cannot be read \(.*\), and an export adds its entries to it\. Export into another folder, or move that file away; nothing was written\.$/,
    );
    expect(await readdir(join(out, 'testing'))).toEqual(['w.cbor']);
    expect(await readFile(join(out, 'info.labels'), 'utf8')).toBe('{ "version": 1, "files": [');
  });
});
