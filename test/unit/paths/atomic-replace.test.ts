import { mkdir, mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replaceFile, writeFileAtomic } from '../../../src-main/core/fs/atomic-write.js';

const errno = (code: string) => Object.assign(new Error(`${code}: operation not permitted, rename`), { code });

/** A rename that fails `n` times with `code`, as Windows does while a scanner holds the file. */
function flaky(n: number, code: string) {
  const calls: string[] = [];
  return {
    calls,
    rename: async (a: string, b: string) => {
      calls.push(`${a}->${b}`);
      if (calls.length <= n) throw errno(code);
    },
  };
}

describe('replacing a file', () => {
  it('on Windows, waits out a scanner or indexer holding the file for a moment', async () => {
    const waited: number[] = [];
    const r = flaky(3, 'EPERM');
    await replaceFile('a.tmp', 'a', { platform: 'win32', rename: r.rename, sleep: async (ms) => void waited.push(ms) });
    expect(r.calls).toHaveLength(4);
    expect(waited).toEqual([10, 20, 40]);
  });

  it('on Windows, gives up after about 2.5 s and says why', async () => {
    const waited: number[] = [];
    const r = flaky(100, 'EBUSY');
    await expect(replaceFile('a.tmp', 'a', { platform: 'win32', rename: r.rename, sleep: async (ms) => void waited.push(ms) })).rejects.toMatchObject({ code: 'EBUSY' });
    expect(waited.reduce((s, x) => s + x, 0)).toBeLessThan(3000);
  });

  it('elsewhere, and for other errors, fails at once', async () => {
    const linux = flaky(1, 'EACCES');
    await expect(replaceFile('a.tmp', 'a', { platform: 'linux', rename: linux.rename, sleep: async () => {} })).rejects.toMatchObject({ code: 'EACCES' });
    expect(linux.calls).toHaveLength(1);
    const gone = flaky(1, 'ENOENT');
    await expect(replaceFile('a.tmp', 'a', { platform: 'win32', rename: gone.rename, sleep: async () => {} })).rejects.toMatchObject({ code: 'ENOENT' });
    expect(gone.calls).toHaveLength(1);
  });

  it('leaves no temp file behind when the rename fails for good', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cd-atomic-'));
    // The target is a non-empty folder: rename cannot replace it, on any OS.
    await mkdir(join(dir, 'settings.json', 'x'), { recursive: true });
    await expect(writeFileAtomic(join(dir, 'settings.json'), '{}')).rejects.toThrow();
    expect(await readdir(dir)).toEqual(['settings.json']);
  });

  it('still writes normally', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cd-atomic-'));
    await writeFileAtomic(join(dir, 'a.json'), '1');
    await writeFileAtomic(join(dir, 'a.json'), '2');
    expect(await readFile(join(dir, 'a.json'), 'utf8')).toBe('2');
    expect(await readdir(dir)).toEqual(['a.json']);
  });
});
