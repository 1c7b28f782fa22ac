import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Stats } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isIgnoredUnder, isSampleFileName, scanFolder } from '../../src-main/core/watch/watch-filter.js';

const file = { isFile: () => true } as Stats;
const dir = { isFile: () => false } as Stats;

describe('watch filter', () => {
  it('accepts the platform file types and nothing half-written, hidden or unsupported', () => {
    for (const ok of ['idle.01.cbor', 'a.JSON', 'x.csv', 'y.parquet', 'w.wav', 'p.jpg', 'p.jpeg', 'p.png', 'v.mp4', 'v.avi']) expect(isSampleFileName(ok), ok).toBe(true);
    for (const no of ['info.labels', 'notes.txt', 'noext', '.hidden.csv', '~lock.csv', '~$sheet.csv', 'a.csv.tmp', 'a.wav.part', 'a.csv.crdownload', 'a.csv.partial']) {
      expect(isSampleFileName(no), no).toBe(false);
    }
  });

  it('judges paths below the root only, and directories by their hidden names alone', () => {
    const root = '/home/me/.local/captures'; // a dot folder above the root must not hide the root
    expect(isIgnoredUnder(root, root)).toBe(false);
    expect(isIgnoredUnder(root, `${root}/run 1`)).toBe(false); // may be a directory: no extension rule without stats
    expect(isIgnoredUnder(root, `${root}/run 1`, dir)).toBe(false);
    expect(isIgnoredUnder(root, `${root}/run 1/idle.csv`, file)).toBe(false);
    expect(isIgnoredUnder(root, `${root}/run 1/notes.txt`, file)).toBe(true);
    expect(isIgnoredUnder(root, `${root}/.git`)).toBe(true);
    expect(isIgnoredUnder(root, `${root}/.git/idle.csv`, file)).toBe(true);
    expect(isIgnoredUnder(root, `${root}/~backup/idle.csv`, file)).toBe(true);
  });

  it('scans subfolders in a stable order, skipping hidden folders and linked folders', async () => {
    const root = await mkdtemp(join(tmpdir(), 'cd-scan-'));
    const outside = await mkdtemp(join(tmpdir(), 'cd-scan-out-'));
    await writeFile(join(outside, 'far.csv'), 'x');
    await mkdir(join(root, 'b', 'c'), { recursive: true });
    await mkdir(join(root, '.hidden'));
    await writeFile(join(root, 'z.csv'), 'x');
    await writeFile(join(root, 'a.txt'), 'x');
    await writeFile(join(root, 'b', 'c', 'y.wav'), 'x');
    await writeFile(join(root, '.hidden', 'h.csv'), 'x');
    await symlink(outside, join(root, 'linked'));
    await symlink(join(outside, 'far.csv'), join(root, 'link.csv'));
    expect(await scanFolder(root)).toEqual([join(root, 'b', 'c', 'y.wav'), join(root, 'link.csv'), join(root, 'z.csv')]);
  });
});
