import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ReadWorker } from '../../../src-main/core/import/read-worker.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function folder(files: Record<string, Buffer>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cd-read-worker-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  for (const [name, bytes] of Object.entries(files)) await writeFile(join(dir, name), bytes);
  return dir;
}

function reader(keepLimit: number): ReadWorker {
  const r = new ReadWorker(keepLimit);
  cleanups.push(() => r.close());
  return r;
}

const pattern = (n: number, seed = 1) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff));
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('ReadWorker', () => {
  it('returns every file whole with its sha256, in order, across slabs and around the one-read size', async () => {
    // 40 files of 60 kB overflow a 1 MiB slab twice; the others sit around the 64 KiB scratch size.
    const sizes = [0, 1, 1700, 65_535, 65_536, 65_537, 300_000, ...Array.from({ length: 40 }, () => 60_000)];
    const files = Object.fromEntries(sizes.map((n, i) => [`f${i}.cbor`, pattern(n, i)]));
    const dir = await folder(files);
    const paths = sizes.map((_, i) => join(dir, `f${i}.cbor`));
    const out = await reader(1024 * 1024).read(paths);
    expect(out.map((r) => r.path)).toEqual(paths);
    out.forEach((r, i) => {
      const want = files[`f${i}.cbor`]!;
      expect(r.bytes?.equals(want), `f${i}`).toBe(true);
      expect(r.bytes && 'sha256' in r ? r.sha256 : null).toBe(sha(want));
    });
  });

  it('answers requests in order, leaves big files to the caller and reports unreadable ones', async () => {
    const dir = await folder({ 'a.cbor': pattern(10), 'big.wav': pattern(200_000) });
    const r = reader(100_000);
    const [first, second] = await Promise.all([r.read([join(dir, 'a.cbor')]), r.read([join(dir, 'big.wav'), join(dir, 'gone.cbor')])]);
    expect(first[0]!.bytes?.equals(pattern(10))).toBe(true);
    expect(second[0]).toMatchObject({ bytes: null, tooBig: true });
    expect(second[1]).toMatchObject({ bytes: null, tooBig: false, error: expect.stringContaining('ENOENT') });
    expect(await r.read([])).toEqual([]);
  });

  it('refuses work once closed', async () => {
    const r = new ReadWorker(10);
    await r.close();
    await expect(r.read(['/nonexistent'])).rejects.toThrow(/closed/);
  });
});
