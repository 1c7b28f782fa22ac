import { Worker } from 'node:worker_threads';

/** A file's whole content and hash, or why it was not read: too big to keep in memory, or unreadable. */
export type HashedRead =
  | { path: string; bytes: Buffer; sha256: string }
  | { path: string; bytes: null; tooBig: true }
  | { path: string; bytes: null; tooBig: false; error: string };

/** The worker's answer per file: where its bytes are (a slab and an offset, or a buffer of its own). */
type Located = { slab: number; at: number; n: number; sha256: string } | { own: number; sha256: string } | { tooBig: true } | { error: string };

interface Answer {
  id: number;
  files: Located[];
  slabs: ArrayBuffer[];
  own: ArrayBuffer[];
}

/**
 * The worker's code, plain CommonJS so it runs the same from the bundled CLI, the Electron main
 * process and the tests (no file of its own to locate). Per file: open, one read into a scratch
 * buffer (enough for most sensor files), fstat and read on only when it was full, close; then the
 * hash. Small files are packed into 1 MiB slabs that are moved, not copied, to the main thread.
 */
const SOURCE = String.raw`
const { parentPort } = require('node:worker_threads');
const { openSync, readSync, fstatSync, closeSync } = require('node:fs');
const { createHash, hash } = require('node:crypto');
// One-shot hashing where Node has it (20.12+, and Electron's): no Hash object per file, ~3x faster on small files.
const sha256 = typeof hash === 'function' ? (b) => hash('sha256', b) : (b) => createHash('sha256').update(b).digest('hex');
const SCRATCH = 64 * 1024;
const SLAB = 1024 * 1024;
const scratch = Buffer.allocUnsafeSlow(SCRATCH);
parentPort.on('message', ({ id, paths: joined, keepLimit }) => {
  const paths = joined.split('\0');
  const files = [];
  const slabs = [];
  const own = [];
  let slab = null;
  let at = 0;
  for (const path of paths) {
    let fd = -1;
    try {
      fd = openSync(path, 'r');
      const n = readSync(fd, scratch, 0, SCRATCH, 0);
      if (n < SCRATCH) {
        // A short read of a regular file is its end.
        if (slab === null || at + n > slab.length) {
          slab = Buffer.allocUnsafeSlow(SLAB);
          slabs.push(slab);
          at = 0;
        }
        scratch.copy(slab, at, 0, n);
        files.push({ slab: slabs.length - 1, at, n, sha256: sha256(scratch.subarray(0, n)) });
        at += n;
        continue;
      }
      const size = fstatSync(fd).size;
      if (size > keepLimit) {
        files.push({ tooBig: true });
        continue;
      }
      let bytes = Buffer.allocUnsafeSlow(Math.max(size, n));
      scratch.copy(bytes, 0, 0, n);
      let end = n;
      while (end < bytes.length) {
        const got = readSync(fd, bytes, end, bytes.length - end, end);
        if (got === 0) break; // it shrank since fstat
        end += got;
      }
      if (end < bytes.length) {
        const cut = Buffer.allocUnsafeSlow(end); // its own memory: a pooled buffer cannot be moved
        bytes.copy(cut, 0, 0, end);
        bytes = cut;
      }
      own.push(bytes.buffer);
      files.push({ own: own.length - 1, sha256: sha256(bytes) });
    } catch (err) {
      files.push({ error: 'cannot read it (' + (err.code || err.message) + ')' });
    } finally {
      if (fd >= 0) closeSync(fd);
    }
  }
  const buffers = slabs.map((s) => s.buffer);
  parentPort.postMessage({ id, files, slabs: buffers, own }, [...buffers, ...own]);
});
`;

/**
 * Reads and hashes files on a worker thread, with synchronous calls there: the main thread, which
 * indexes and sends, gets one message per chunk instead of a callback per open, read and close,
 * and the whole costs less CPU than the same calls through the thread pool.
 */
export class ReadWorker {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, { paths: string[]; resolve: (r: HashedRead[]) => void; reject: (e: Error) => void }>();
  #nextId = 1;
  #failed: Error | null = null;

  constructor(private readonly keepLimit: number) {
    this.#worker = new Worker(SOURCE, { eval: true });
    this.#worker.unref(); // never what keeps a command running
    this.#worker.on('message', (a: Answer) => this.#answer(a));
    this.#worker.on('error', (err) => this.#fail(err));
    this.#worker.on('exit', (code) => this.#fail(new Error(`the file reader stopped (exit code ${code})`)));
  }

  /** Reads `paths` in order; requests are answered in the order they were made. */
  read(paths: string[]): Promise<HashedRead[]> {
    if (this.#failed) return Promise.reject(this.#failed);
    if (paths.length === 0) return Promise.resolve([]);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { paths, resolve, reject });
      // One string, NUL between the paths (no path holds one): copying an array of 256 strings into the thread cost more.
      this.#worker.postMessage({ id, paths: paths.join('\0'), keepLimit: this.keepLimit });
    });
  }

  async close(): Promise<void> {
    this.#failed ??= new Error('the file reader was closed');
    await this.#worker.terminate();
  }

  #answer({ id, files, slabs, own }: Answer): void {
    const w = this.#waiting.get(id);
    if (!w) return;
    this.#waiting.delete(id);
    w.resolve(files.map((f, i): HashedRead => {
      const path = w.paths[i]!;
      if ('slab' in f) return { path, bytes: Buffer.from(slabs[f.slab]!, f.at, f.n), sha256: f.sha256 };
      if ('own' in f) return { path, bytes: Buffer.from(own[f.own]!), sha256: f.sha256 };
      if ('tooBig' in f) return { path, bytes: null, tooBig: true };
      return { path, bytes: null, tooBig: false, error: f.error };
    }));
  }

  #fail(err: Error): void {
    this.#failed ??= err;
    for (const w of this.#waiting.values()) w.reject(err);
    this.#waiting.clear();
  }
}
