import { Worker } from 'node:worker_threads';

/** One request to the writer thread; every path is absolute. */
export type WriteRequest =
  | { op: 'write'; files: Array<{ path: string; at: number; n: number }>; buffer: ArrayBuffer }
  | { op: 'fsync'; paths: string[] }
  | { op: 'rename'; pairs: Array<[from: string, to: string]> }
  | { op: 'remove'; paths: string[] };

/**
 * The worker's code, plain CommonJS so it runs the same from the bundled CLI, the Electron main
 * process and the tests (no file of its own to locate), as read-worker.ts's. Each request runs
 * to its end or its first error; `done` lists what was renamed before an error.
 */
const SOURCE = String.raw`
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
parentPort.on('message', ({ id, op, files, buffer, paths, pairs }) => {
  const done = [];
  let error = null;
  try {
    if (op === 'write') {
      const bytes = new Uint8Array(buffer);
      for (const f of files) {
        // 'wx': a temp name is new; 0o600 as writeFileAtomic's temp files (the samples are the user's alone).
        const fd = fs.openSync(f.path, 'wx', 0o600);
        try {
          for (let at = 0; at < f.n;) at += fs.writeSync(fd, bytes, f.at + at, f.n - at);
        } finally {
          fs.closeSync(fd);
        }
      }
    } else if (op === 'fsync') {
      for (const p of paths) {
        const fd = fs.openSync(p, 'r+'); // r+: Windows flushes a file only through a handle that may write it
        try {
          fs.fsyncSync(fd);
        } finally {
          fs.closeSync(fd);
        }
      }
    } else if (op === 'rename') {
      for (const [from, to] of pairs) {
        fs.renameSync(from, to);
        done.push(to);
      }
    } else if (op === 'remove') {
      for (const p of paths) fs.rmSync(p, { force: true });
    }
  } catch (err) {
    error = { message: err.message, code: err.code, errno: err.errno, syscall: err.syscall, path: err.path };
  }
  parentPort.postMessage({ id, done, error });
});
`;

/** Idle this long, the thread ends (a new one starts with the next batch). */
const IDLE_MS = 10_000;

/**
 * Writes, syncs, renames and removes files on a thread of its own, with synchronous calls there:
 * the main thread, which decodes and indexes the next batch meanwhile, sends one message per batch
 * instead of four thread-pool round trips per file (the same trade as ReadWorker's). It never
 * keeps a process alive on its own: only while an answer is owed.
 */
export class WriteWorker {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, { resolve: (done: string[]) => void; reject: (e: Error) => void }>();
  #nextId = 1;
  #failed: Error | null = null;
  #idle: NodeJS.Timeout | null = null;

  constructor() {
    this.#worker = new Worker(SOURCE, { eval: true });
    this.#worker.unref();
    this.#worker.on('message', (a: { id: number; done: string[]; error: { message: string } | null }) => this.#answer(a));
    this.#worker.on('error', (err) => this.#fail(err));
    this.#worker.on('exit', (code) => this.#fail(new Error(`the file writer stopped (exit code ${code})`)));
  }

  /** False once the thread failed or ended: the caller does the work another way. */
  get usable(): boolean {
    return this.#failed === null;
  }

  /** Resolves with what was done (renamed files); rejects with the file system's error, code and path kept. */
  run(request: WriteRequest): Promise<string[]> {
    if (this.#failed) return Promise.reject(this.#failed);
    if (this.#idle) clearTimeout(this.#idle);
    this.#idle = null;
    if (this.#waiting.size === 0) this.#worker.ref();
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      this.#worker.postMessage({ id, ...request }, request.op === 'write' ? [request.buffer] : []);
    });
  }

  #answer({ id, done, error }: { id: number; done: string[]; error: { message: string } | null }): void {
    const w = this.#waiting.get(id);
    if (!w) return;
    this.#waiting.delete(id);
    if (this.#waiting.size === 0) {
      this.#worker.unref();
      this.#idle = setTimeout(() => this.#end(), IDLE_MS);
      this.#idle.unref();
    }
    if (error) w.reject(Object.assign(new Error(error.message), error, { done }));
    else w.resolve(done);
  }

  #end(): void {
    if (this.#waiting.size > 0) return;
    this.#failed ??= new Error('the file writer was closed');
    void this.#worker.terminate();
  }

  #fail(err: Error): void {
    this.#failed ??= err;
    for (const w of this.#waiting.values()) w.reject(err);
    this.#waiting.clear();
  }
}
