import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../src-main/core/log.js';
import { IdBatcher } from '../../src-main/core/watch/id-batcher.js';
import { WatchedFolderInput } from '../../src-main/core/contract/watch-schema.js';
import { loadWatchedFolders, saveWatchedFolders } from '../../src-main/core/watch/watched-folders-file.js';

const good = { id: 'f1', path: '/data/in', category: 'training', label: { mode: 'filename' }, metadata: {}, enabled: true } as const;

describe('watched folder config', () => {
  it('checks paths and labels, and fills in metadata and enabled', () => {
    expect(WatchedFolderInput.parse({ path: '/x', category: 'testing', label: { mode: 'unlabeled' } })).toEqual({
      path: '/x', category: 'testing', label: { mode: 'unlabeled' }, metadata: {}, enabled: true,
    });
    for (const path of ['C:\\captures', 'D:/captures', '\\\\server\\share\\in']) expect(WatchedFolderInput.safeParse({ path, category: 'training', label: { mode: 'filename' } }).success, path).toBe(true);
    const bad = [
      { path: 'captures', category: 'training', label: { mode: 'filename' } },
      { path: '/x', category: 'train', label: { mode: 'filename' } },
      { path: '/x', category: 'training', label: { mode: 'fixed', label: ' ' } },
      { path: '/x', category: 'training', label: { mode: 'fixed' } },
      { path: '/x', category: 'training', label: { mode: 'filename' }, extra: 1 },
    ];
    for (const b of bad) expect(WatchedFolderInput.safeParse(b).success, JSON.stringify(b)).toBe(false);
  });

  it('keeps the valid folders of a damaged file, and a copy of the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cd-watchcfg-'));
    expect(await loadWatchedFolders(dir, silentLogger)).toEqual([]);
    await writeFile(join(dir, 'watched-folders.json'), JSON.stringify({ version: 1, folders: [good, { id: 'f2', path: 'relative' }] }));
    expect(await loadWatchedFolders(dir, silentLogger)).toEqual([good]);
    const files = await readdir(dir);
    expect(files.filter((f) => f.startsWith('watched-folders.json.broken-'))).toHaveLength(1);
    expect(JSON.parse(await readFile(join(dir, 'watched-folders.json'), 'utf8'))).toEqual({ version: 1, folders: [good] });

    await writeFile(join(dir, 'watched-folders.json'), '{not json');
    expect(await loadWatchedFolders(dir, silentLogger)).toEqual([]);
    await saveWatchedFolders(dir, [good]);
    expect(await loadWatchedFolders(dir, silentLogger)).toEqual([good]);
  });
});

describe('IdBatcher', () => {
  afterEach(() => vi.useRealTimers());

  it('delivers ids that arrive within the window in one call, and flushes on demand', () => {
    vi.useFakeTimers();
    const calls: string[][] = [];
    const b = new IdBatcher(100, (ids) => calls.push(ids));
    b.push('a');
    vi.advanceTimersByTime(60);
    b.push('b');
    vi.advanceTimersByTime(50);
    expect(calls).toEqual([['a', 'b']]);
    b.push('c');
    b.flush();
    b.flush();
    expect(calls).toEqual([['a', 'b'], ['c']]);
    vi.advanceTimersByTime(500);
    expect(calls).toHaveLength(2);
  });
});
