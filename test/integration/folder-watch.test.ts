import { mkdir, mkdtemp, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CoreError } from '../../src-main/core/errors.js';
import { createLogger } from '../../src-main/core/log.js';
import { SampleStore } from '../../src-main/core/samples/sample-store.js';
import { FolderWatcher } from '../../src-main/core/watch/folder-watcher.js';
import type { WatchedFolderInput } from '../../src-main/core/contract/watch-schema.js';

/**
 * Real files, real chokidar, real SampleStore. Waits poll for the expected state; the only fixed
 * waits are the pauses that make a writer look slow, each shorter than the stability time.
 */
const STABILITY_MS = 300;
const POLL = { timeout: 10_000, interval: 50 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function tmp(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function setup() {
  const dataDir = await tmp('cd-watch-data-');
  const store = await SampleStore.open(dataDir, createLogger(() => {}));
  cleanups.push(() => store.close());
  const calls: string[][] = [];
  const errors: Array<{ folderId: string; path: string; message: string }> = [];
  const openWatcher = async () => {
    const w = await FolderWatcher.open({
      dataDir,
      store,
      log: createLogger(() => {}),
      onSamplesAdded: (ids) => calls.push(ids),
      onError: (folderId, path, message) => errors.push({ folderId, path, message }),
      stabilityMs: STABILITY_MS,
    });
    cleanups.push(() => w.close());
    return w;
  };
  const watcher = await openWatcher();
  const folder = (path: string, extra: Partial<WatchedFolderInput> = {}): WatchedFolderInput => ({
    path, category: 'training', label: { mode: 'filename' }, ...extra,
  });
  return { dataDir, store, calls, errors, watcher, openWatcher, folder, added: () => calls.flat() };
}

/** Waits until the store holds a sample made from `path`, then returns it. */
async function sampleFrom(store: SampleStore, path: string) {
  await expect.poll(() => store.list().some((s) => s.file === path), POLL).toBe(true);
  return store.list().find((s) => s.file === path)!;
}

describe('folder watcher', () => {
  it('imports a file written in pieces once, only after it stopped changing, with the folder rules', async () => {
    const { store, watcher, folder, added } = await setup();
    const dir = await tmp('cd-watch-in-');
    const f = await watcher.add(folder(dir, { category: 'testing', label: { mode: 'fixed', label: 'wave' }, metadata: { subject: 'ana' } }));
    expect(f).toMatchObject({ path: dir, category: 'testing', enabled: true });

    const path = join(dir, 'idle.01.csv');
    const fh = await open(path, 'w');
    const chunks = ['timestamp,x\n', '0,1\n10,2\n', '20,3\n30,4\n'];
    for (const c of chunks) {
      await fh.write(c);
      await fh.sync();
      await sleep(STABILITY_MS / 2); // slower than chokidar's polling, faster than the stability time
      expect(store.list()).toHaveLength(0); // never a half-written file
    }
    await fh.close();

    const s = await sampleFrom(store, path);
    expect(s).toMatchObject({ label: 'wave', category: 'testing', metadata: { subject: 'ana' }, state: 'queued', bytes: chunks.join('').length, kind: 'sensor' });
    await expect.poll(() => added(), POLL).toEqual([s.id]);
    // Once: a second stability period later there is still one sample and one notification.
    await sleep(STABILITY_MS * 2);
    expect(store.list()).toHaveLength(1);
    expect(added()).toEqual([s.id]);
  });

  it('takes files from new and existing subfolders and ignores hidden, temporary and unsupported files', async () => {
    const { store, watcher, folder, errors } = await setup();
    const dir = await tmp('cd-watch-in-');
    await mkdir(join(dir, 'old', 'deeper'), { recursive: true });
    await watcher.add(folder(dir));

    // The ignored files go first: by the time the accepted ones are in, these would have been too.
    await writeFile(join(dir, 'notes.txt'), 'not a sample');
    await writeFile(join(dir, 'upload.csv.part'), '0,1\n');
    await writeFile(join(dir, 'run.csv.tmp'), '0,1\n');
    await writeFile(join(dir, '~lock.csv'), '0,1\n');
    await writeFile(join(dir, '.hidden.csv'), '0,1\n');
    await writeFile(join(dir, 'info.labels'), '{}');
    await mkdir(join(dir, '.cache'));
    await writeFile(join(dir, '.cache', 'x.csv'), '0,1\n');

    await writeFile(join(dir, 'old', 'deeper', 'jump.2.json'), '{}');
    await mkdir(join(dir, 'new', 'deeper'), { recursive: true });
    await writeFile(join(dir, 'new', 'deeper', 'walk.3.wav'), 'RIFF');
    // Written as a temp file and renamed when done, as many tools do: imported once, under its final name.
    await writeFile(join(dir, 'idle.csv.tmp'), 'timestamp,x\n0,1\n');
    await rename(join(dir, 'idle.csv.tmp'), join(dir, 'idle.csv'));

    expect((await sampleFrom(store, join(dir, 'old', 'deeper', 'jump.2.json'))).label).toBe('jump');
    expect((await sampleFrom(store, join(dir, 'new', 'deeper', 'walk.3.wav'))).label).toBe('walk');
    expect((await sampleFrom(store, join(dir, 'idle.csv'))).label).toBe('idle');
    await sleep(STABILITY_MS);
    expect(store.list().map((s) => s.name).sort()).toEqual(['idle.csv', 'jump.2.json', 'walk.3.wav']);
    expect(errors).toEqual([]);
  });

  it('hands files that arrive together to the listener in one call', async () => {
    const { store, watcher, folder, calls } = await setup();
    const dir = await tmp('cd-watch-in-');
    await watcher.add(folder(dir));
    await Promise.all([1, 2, 3, 4, 5, 6].map((i) => writeFile(join(dir, `burst.${i}.csv`), `x\n${i}\n`)));
    await expect.poll(() => calls.flat().length, POLL).toBe(6);
    expect(calls.flat().sort()).toEqual(store.list().map((s) => s.id).sort());
    expect(calls.length).toBeLessThan(6); // batched; chokidar's per-file polling may split a burst in two
  });

  it('offers files that were there before, imports them only when accepted, and never offers them again', async () => {
    const { store, watcher, folder, added, calls } = await setup();
    const dir = await tmp('cd-watch-in-');
    await mkdir(join(dir, 'sub'));
    await writeFile(join(dir, 'a.1.csv'), 'x\n1\n');
    await writeFile(join(dir, 'sub', 'b.2.json'), '{"a":1}');
    await writeFile(join(dir, 'c.3.png'), 'png');
    await writeFile(join(dir, 'readme.txt'), 'ignored');
    const f = await watcher.add(folder(dir, { label: { mode: 'unlabeled' }, category: 'validation' }));

    const expected = [join(dir, 'a.1.csv'), join(dir, 'c.3.png'), join(dir, 'sub', 'b.2.json')];
    await expect.poll(async () => (await watcher.pending(f.id)).map((p) => p.path), POLL).toEqual(expected);
    expect((await watcher.pending(f.id))[0]).toEqual({ path: join(dir, 'a.1.csv'), bytes: 4 });
    expect(store.list()).toHaveLength(0); // offered, not uploaded

    const some = await watcher.importPending(f.id, [join(dir, 'a.1.csv'), '/etc/passwd']);
    expect(some.added).toHaveLength(1);
    expect(some.failed).toEqual([{ path: '/etc/passwd', reason: expect.stringContaining('not among the files') }]);
    expect((await watcher.pending(f.id)).map((p) => p.path)).toEqual(expected.slice(1));

    const rest = await watcher.importPending(f.id);
    expect(rest).toMatchObject({ known: 0, failed: [] });
    expect(rest.added).toHaveLength(2);
    expect(await watcher.pending(f.id)).toEqual([]);
    expect(store.list().every((s) => s.label === null && s.category === 'validation' && s.state === 'queued')).toBe(true);
    expect(calls).toEqual([some.added, rest.added]);
    expect(added().sort()).toEqual(store.list().map((s) => s.id).sort());
  });

  it('after a restart offers what arrived while closed, not what was imported, and keeps watching', async () => {
    const { store, watcher, openWatcher, folder, added } = await setup();
    const dir = await tmp('cd-watch-in-');
    const f = await watcher.add(folder(dir, { metadata: { rig: 'A' } }));
    await writeFile(join(dir, 'live.1.csv'), 'x\n1\n');
    await sampleFrom(store, join(dir, 'live.1.csv'));
    await watcher.close();

    await writeFile(join(dir, 'offline.2.csv'), 'x\n2\n'); // while the app was closed
    const again = await openWatcher();
    expect(again.list()).toEqual([{ ...f, watching: true, problem: null }]);
    await expect.poll(async () => (await again.pending(f.id)).map((p) => p.path), POLL).toEqual([join(dir, 'offline.2.csv')]);
    expect(store.list()).toHaveLength(1);

    await writeFile(join(dir, 'after.3.csv'), 'x\n3\n');
    const s = await sampleFrom(store, join(dir, 'after.3.csv'));
    expect(s.metadata).toEqual({ rig: 'A' });
    expect((await again.pending(f.id)).map((p) => p.path)).toEqual([join(dir, 'offline.2.csv')]);
    await expect.poll(() => added().length, POLL).toBe(2);
  });

  it('stops when a folder is removed or disabled; enabling again offers what came meanwhile', async () => {
    const { store, watcher, folder } = await setup();
    const [a, b, sentinel] = [await tmp('cd-watch-a-'), await tmp('cd-watch-b-'), await tmp('cd-watch-s-')];
    const fa = await watcher.add(folder(a));
    const fb = await watcher.add(folder(b));
    await watcher.add(folder(sentinel));
    await watcher.remove(fa.id);
    expect((await watcher.setEnabled(fb.id, false)).enabled).toBe(false);
    expect(watcher.list().map((f) => [f.path, f.enabled, f.watching])).toEqual([[b, false, false], [sentinel, true, true]]);

    await writeFile(join(a, 'x.1.csv'), 'x\n1\n');
    await writeFile(join(b, 'y.1.csv'), 'y\n1\n');
    await writeFile(join(sentinel, 'z.1.csv'), 'z\n1\n');
    await sampleFrom(store, join(sentinel, 'z.1.csv')); // the other two were written first and would be in by now
    await sleep(STABILITY_MS);
    expect(store.list().map((s) => s.name)).toEqual(['z.1.csv']);
    await expect(watcher.pending(fa.id)).rejects.toMatchObject({ code: 'NotFound' });

    await watcher.setEnabled(fb.id, true);
    await expect.poll(async () => (await watcher.pending(fb.id)).map((p) => p.path), POLL).toEqual([join(b, 'y.1.csv')]);
  });

  it('refuses folders it cannot or should not watch, saying why', async () => {
    const { dataDir, watcher, folder } = await setup();
    const dir = await tmp('cd-watch-in-');
    await mkdir(join(dir, 'inner'));
    await writeFile(join(dir, 'file.csv'), 'x');
    const refused = async (input: WatchedFolderInput) => {
      const err = await watcher.add(input).then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(CoreError);
      return err as CoreError;
    };

    expect(await refused(folder(join(dir, 'missing')))).toMatchObject({ code: 'NotFound', message: expect.stringContaining('does not exist') });
    expect(await refused(folder(join(dir, 'file.csv')))).toMatchObject({ code: 'InvalidArguments', message: expect.stringContaining('is a file, not a folder') });
    expect((await refused(folder('relative/path'))).message).toContain('absolute path');
    expect((await refused(folder(dir, { label: { mode: 'fixed', label: '  ' } }))).message).toContain('fixed label must not be empty');
    expect((await refused(folder(dataDir))).message).toContain('data folder');
    expect((await refused(folder(join(dataDir, 'samples')))).message).toContain('data folder');

    await watcher.add(folder(join(dir, 'inner')));
    expect((await refused(folder(join(dir, 'inner') + '/'))).message).toContain('already watched');
    expect((await refused(folder(dir))).message).toContain('holds the watched folder');
    await mkdir(join(dir, 'inner', 'deep'));
    expect((await refused(folder(join(dir, 'inner', 'deep')))).message).toContain('inside the watched folder');
    expect(watcher.list()).toHaveLength(1);
  });

  it('keeps its folders across a reopen, in watched-folders.json', async () => {
    const { dataDir, watcher, openWatcher, folder } = await setup();
    const dir = await tmp('cd-watch-in-');
    const f = await watcher.add(folder(dir, { label: { mode: 'fixed', label: 'idle' }, metadata: { a: '1' }, enabled: false }));
    await watcher.close();
    const file = JSON.parse(await readFile(join(dataDir, 'watched-folders.json'), 'utf8'));
    expect(file).toEqual({ version: 1, folders: [f] });
    const again = await openWatcher();
    expect(again.list()).toEqual([{ ...f, watching: false, problem: null }]);
  });

  it('reports a folder that is gone at start without failing to open, and a file the platform would refuse', async () => {
    const { store, watcher, openWatcher, folder, errors } = await setup();
    const gone = await tmp('cd-watch-gone-');
    const dir = await tmp('cd-watch-in-');
    const fg = await watcher.add(folder(gone));
    const fd = await watcher.add(folder(dir));

    // Over the platform's 100 MB per file; sparse, so the test writes almost nothing.
    const big = join(dir, 'huge.1.csv');
    const fh = await open(big, 'w');
    await fh.truncate(101 * 1024 * 1024);
    await fh.close();
    await expect.poll(() => errors.length, POLL).toBe(1);
    expect(errors[0]).toEqual({ folderId: fd.id, path: big, message: expect.stringContaining('100 MB') });
    expect(store.list()).toHaveLength(0);

    await watcher.close();
    await rm(gone, { recursive: true });
    const again = await openWatcher();
    const state = again.list().find((f) => f.id === fg.id)!;
    expect(state).toMatchObject({ enabled: true, watching: false, problem: expect.stringContaining('does not exist') });
    expect(errors.at(-1)).toMatchObject({ folderId: fg.id, path: gone });
    await expect(again.importPending(fg.id)).rejects.toMatchObject({ code: 'Unavailable' });
    await expect(again.setEnabled(fg.id, true)).rejects.toMatchObject({ code: 'NotFound' });
  });
});
