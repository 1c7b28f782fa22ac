// Batches of new files written, made durable together and moved into place (core/fs/synced-writes.ts),
// on the real filesystem: with the file system synced at once (Linux: `sync -f` through one shell),
// and with the fallback when that cannot run (here: no `sh` on the PATH), an fsync per file; on the
// writer thread, and through the thread pool where no thread can start.
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';

const work = mkdtempSync(join(tmpdir(), 'cd-synced-writes-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
beforeEach(() => vi.resetModules()); // each test starts with no shell and no verdict on syncfs

function batch(dir: string, n: number) {
  return Array.from({ length: n }, (_, i) => ({ temp: join(dir, `.${i}.json.tmp`), to: join(dir, `${i}.json`), data: Buffer.from(JSON.stringify({ i })) }));
}

async function writeAndPlace(dir: string, n: number): Promise<void> {
  const { renameAll, writeSynced } = await import('../../../src-main/core/fs/synced-writes.js');
  const files = batch(dir, n);
  await writeSynced(dir, files);
  expect(readdirSync(dir).sort()).toEqual(files.map((f) => f.temp.slice(dir.length + 1)).sort());
  await renameAll(files);
  expect(readdirSync(dir).sort()).toEqual(files.map((f) => f.to.slice(dir.length + 1)).sort());
  for (const f of files) expect(readFileSync(f.to, 'utf8')).toBe(f.data.toString());
}

describe('writeSynced and renameAll', () => {
  it('writes a batch, batch after batch, and moves it into place', async () => {
    const dir = mkdtempSync(join(work, 'a-'));
    await writeAndPlace(dir, 300);
    const next = mkdtempSync(join(work, 'b-'));
    await writeAndPlace(next, 3); // the same shell answers again
  });

  it('falls back to an fsync per file when the file system cannot be synced at once', async () => {
    const dir = mkdtempSync(join(work, 'c-'));
    const path = process.env['PATH'];
    process.env['PATH'] = join(work, 'nothing-here');
    try {
      await writeAndPlace(dir, 40);
      await writeAndPlace(mkdtempSync(join(work, 'd-')), 5);
    } finally {
      process.env['PATH'] = path;
    }
  });

  it('without a writer thread (none can start here), does the same through the thread pool', async () => {
    vi.doMock('node:worker_threads', () => ({
      Worker: class {
        constructor() {
          throw new Error('no threads here');
        }
      },
    }));
    try {
      const { WriteWorker } = await import('../../../src-main/core/fs/write-worker.js');
      expect(() => new WriteWorker()).toThrow('no threads here');
      await writeAndPlace(mkdtempSync(join(work, 'f-')), 300);
      await refusesAndCleansUp();
    } finally {
      vi.doUnmock('node:worker_threads');
    }
  });

  it('removes every temp file when one cannot be written, and says why', () => refusesAndCleansUp());

  it('sends a batch of big files to the writer in parts of at most 32 MB, moving the buffers a file owns whole', async () => {
    const sent: number[][] = []; // per write message to the writer: the sizes of the buffers it moves there (the copy first, the span list last)
    vi.doMock('node:worker_threads', async (real: () => Promise<typeof import('node:worker_threads')>) => {
      const wt = await real();
      return {
        ...wt,
        Worker: class extends wt.Worker {
          override postMessage(message: { op: string }, transfer?: readonly import('node:worker_threads').Transferable[]): void {
            if (message.op === 'write') sent.push((transfer ?? []).map((b) => (b as ArrayBuffer).byteLength));
            super.postMessage(message, transfer);
          }
        },
      };
    });
    try {
      const { renameAll, writeSynced } = await import('../../../src-main/core/fs/synced-writes.js');
      const dir = mkdtempSync(join(work, 'h-'));
      const MB = 1024 * 1024;
      // 6 files of 6 MB read on their own (each its whole ArrayBuffer), 4 cut from one big buffer, 40 small ones in one slab; each file's bytes its own.
      const own = Array.from({ length: 6 }, (_, k) => Buffer.allocUnsafeSlow(6 * MB).fill(k + 1));
      const shared = Buffer.allocUnsafeSlow(4 * 6 * MB);
      const slab = Buffer.allocUnsafeSlow(40 * 100);
      const datas: Uint8Array[] = [
        ...own,
        ...Array.from({ length: 4 }, (_, k) => shared.subarray(k * 6 * MB, (k + 1) * 6 * MB).fill(k + 10)),
        ...Array.from({ length: 40 }, (_, k) => slab.subarray(k * 100, (k + 1) * 100).fill(k + 20)),
      ];
      const expected = datas.map((d) => Buffer.from(d)); // copies, to compare with what was written
      const files = datas.map((data, i) => ({ temp: join(dir, `.${i}.bin.tmp`), to: join(dir, `${i}.bin`), data }));
      await writeSynced(dir, files);
      await renameAll(files);
      files.forEach((f, i) => expect(readFileSync(f.to).equals(expected[i]!)).toBe(true));
      expect(sent.length).toBeGreaterThan(1);
      for (const sizes of sent) expect(sizes.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(32 * MB + 64 * 1024);
      // Copied: the bytes cut from a bigger buffer (4 × 6 MB) and the small files; moved: the 6 own buffers, now empty here.
      expect(sent.reduce((n, sizes) => n + sizes[0]!, 0)).toBe(4 * 6 * MB + 40 * 100);
      expect(own.every((b) => b.buffer.byteLength === 0)).toBe(true);
      expect(shared.byteLength).toBe(4 * 6 * MB); // not moved: other files' bytes
    } finally {
      vi.doUnmock('node:worker_threads');
    }
  });

  it.skipIf(process.platform !== 'linux')('fsyncs each file when a slow `sync -f` fails after the writer thread ended for idleness', async () => {
    // A `sync` of our own, first on the PATH: it says it started, waits to be let go, then fails.
    const bin = mkdtempSync(join(work, 'bin-'));
    const started = join(bin, 'started');
    const go = join(bin, 'go');
    writeFileSync(join(bin, 'sync'), `#!/bin/sh\ntouch '${started}'\nwhile [ ! -e '${go}' ]; do sleep 0.02; done\nexit 1\n`);
    chmodSync(join(bin, 'sync'), 0o755);
    const path = process.env['PATH'];
    process.env['PATH'] = `${bin}:${path}`;
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] }); // the writer's idle timer; the polls below use setImmediate
    try {
      const { renameAll, writeSynced } = await import('../../../src-main/core/fs/synced-writes.js');
      const dir = mkdtempSync(join(work, 'g-'));
      const files = batch(dir, 5);
      const written = writeSynced(dir, files);
      written.catch(() => {});
      while (!existsSync(started)) await new Promise((r) => setImmediate(r));
      vi.advanceTimersByTime(60_000); // the sync outlasts the writer's idle time: the thread ends
      writeFileSync(go, '');
      await written;
      await renameAll(files);
      for (const f of files) expect(readFileSync(f.to, 'utf8')).toBe(f.data.toString());
    } finally {
      vi.useRealTimers();
      process.env['PATH'] = path;
    }
  });
});

async function refusesAndCleansUp(): Promise<void> {
  const { renameAll, writeSynced } = await import('../../../src-main/core/fs/synced-writes.js');
  const dir = mkdtempSync(join(work, 'e-'));
  const files = batch(dir, 20);
  files[7] = { ...files[7]!, temp: join(dir, 'no-such-folder', 'x.tmp') };
  await expect(writeSynced(dir, files)).rejects.toMatchObject({ code: 'ENOENT' });
  expect(readdirSync(dir)).toEqual([]);
  expect(existsSync(files[0]!.to)).toBe(false);
  // A move that fails half way takes back the files it moved.
  const good = batch(dir, 10);
  await writeSynced(dir, good);
  good[6] = { ...good[6]!, to: join(dir, 'no-such-folder', '6.json') };
  await expect(renameAll(good)).rejects.toMatchObject({ code: 'ENOENT' });
  expect(readdirSync(dir)).toEqual([]);
}
