import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readFiles } from '../../../src-main/core/import/bulk-reader.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function folder(files: Record<string, Buffer>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cd-bulk-reader-'));
  dirs.push(dir);
  for (const [name, bytes] of Object.entries(files)) await writeFile(join(dir, name), bytes);
  return dir;
}

const pattern = (n: number, seed = 1) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff));

describe('readFiles', () => {
  it('returns every file whole and in order, around the one-read size (64 KiB)', async () => {
    const sizes = [0, 1, 1700, 65_535, 65_536, 65_537, 200_000];
    const files = Object.fromEntries(sizes.map((n, i) => [`f${i}.cbor`, pattern(n, i)]));
    const dir = await folder(files);
    const paths = sizes.map((_, i) => join(dir, `f${i}.cbor`));
    const out = await readFiles(paths, 3, 1024 * 1024);
    expect(out.map((r) => r.path)).toEqual(paths);
    out.forEach((r, i) => expect(r.bytes?.equals(files[`f${i}.cbor`]!)).toBe(true));
  });

  it('gives each file its own bytes although lanes reuse a scratch buffer', async () => {
    const files = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`s${i}.json`, pattern(100 + i, i)]));
    const dir = await folder(files);
    const out = await readFiles(Object.keys(files).map((n) => join(dir, n)), 4, 1024);
    out.forEach((r, i) => expect(r.bytes?.equals(files[`s${i}.json`]!)).toBe(true));
  });

  it('leaves files over the keep limit to the caller and reports unreadable ones', async () => {
    const dir = await folder({ 'big.wav': pattern(300_000) });
    const [big, gone] = await readFiles([join(dir, 'big.wav'), join(dir, 'missing.cbor')], 2, 100_000);
    expect(big).toMatchObject({ bytes: null, tooBig: true });
    expect(gone).toMatchObject({ bytes: null, tooBig: false, error: expect.stringContaining('ENOENT') });
  });

  it('answers an empty list', async () => {
    expect(await readFiles([], 4, 10)).toEqual([]);
  });
});
