import { Worker } from 'node:worker_threads';

/** One request to the writer thread; every path is absolute. */
export type WriteRequest =
  /** Each file's bytes are `n` bytes at `at` in `buffers[buffer]`; the buffers are moved to the thread (left empty here). */
  | { op: 'write'; files: Array<{ path: string; buffer: number; at: number; n: number }>; buffers: ArrayBuffer[] }
  | { op: 'fsync'; paths: string[] }
  | { op: 'rename'; pairs: Array<[from: string, to: string]> }
  | { op: 'remove'; paths: string[] };

/**
 * A request as it crosses to the thread: paths in one string, NUL between them (no path holds a
 * NUL), and numbers in a moved Float64Array. Copying 512 little objects and 1,000 strings into
 * the thread took longer than writing the files' bytes.
 */
interface Wire {
  id: number;
  op: WriteRequest['op'];
  paths: string;
  /** write: the buffer, start and length of each file's bytes; rename: unused. */
  spans?: Float64Array;
  /** rename: the new names, as `paths` holds the old ones. */
  to?: string;
  buffers?: ArrayBuffer[];
}

function toWire(id: number, r: WriteRequest): { wire: Wire; transfer: ArrayBuffer[] } {
  if (r.op === 'write') {
    const spans = new Float64Array(r.files.length * 3);
    r.files.forEach((f, i) => {
      spans[3 * i] = f.buffer;
      spans[3 * i + 1] = f.at;
      spans[3 * i + 2] = f.n;
    });
    return { wire: { id, op: r.op, paths: r.files.map((f) => f.path).join('\0'), spans, buffers: r.buffers }, transfer: [...r.buffers, spans.buffer as ArrayBuffer] };
  }
  if (r.op === 'rename') return { wire: { id, op: r.op, paths: r.pairs.map((p) => p[0]).join('\0'), to: r.pairs.map((p) => p[1]).join('\0') }, transfer: [] };
  return { wire: { id, op: r.op, paths: r.paths.join('\0') }, transfer: [] };
}

/**
 * The worker's code, plain CommonJS so it runs the same from the bundled CLI, the Electron main
 * process and the tests (no file of its own to locate), as read-worker.ts's. Each request runs
 * to its end or its first error; `done` lists what was renamed before an error.
 */
const SOURCE = String.raw`
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
parentPort.on('message', ({ id, op, paths, spans, to, buffers }) => {
  const list = paths === '' ? [] : paths.split('\0');
  const done = [];
  let error = null;
  try {
    if (op === 'write') {
      const views = buffers.map((b) => new Uint8Array(b));
      list.forEach((path, i) => {
        const bytes = views[spans[3 * i]];
        const start = spans[3 * i + 1];
        const n = spans[3 * i + 2];
        // 'wx': a temp name is new; 0o600 as writeFileAtomic's temp files (the samples are the user's alone).
        const fd = fs.openSync(path, 'wx', 0o600);
        try {
          for (let at = 0; at < n;) at += fs.writeSync(fd, bytes, start + at, n - at);
        } finally {
          fs.closeSync(fd);
        }
      });
    } else if (op === 'fsync') {
      for (const p of list) {
        const fd = fs.openSync(p, 'r+'); // r+: Windows flushes a file only through a handle that may write it
        try {
          fs.fsyncSync(fd);
        } finally {
          fs.closeSync(fd);
        }
      }
    } else if (op === 'rename') {
      const targets = to.split('\0');
      list.forEach((from, i) => {
        fs.renameSync(from, targets[i]);
        done.push(targets[i]);
      });
    } else if (op === 'remove') {
      for (const p of list) fs.rmSync(p, { force: true });
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
    const { wire, transfer } = toWire(id, request);
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      try {
        this.#worker.postMessage(wire, transfer);
      } catch (err) {
        // Not sent (a buffer that cannot be moved): nothing owed, nothing moved.
        this.#settle(id);
        reject(err as Error);
      }
    });
  }

  #answer({ id, done, error }: { id: number; done: string[]; error: { message: string } | null }): void {
    const w = this.#waiting.get(id);
    if (!w) return;
    this.#settle(id);
    if (error) w.reject(Object.assign(new Error(error.message), error, { done }));
    else w.resolve(done);
  }

  /** No answer owed for `id` any more; with none owed at all, the thread stops keeping the process alive and ends when idle. */
  #settle(id: number): void {
    this.#waiting.delete(id);
    if (this.#waiting.size > 0) return;
    this.#worker.unref();
    this.#idle = setTimeout(() => this.#end(), IDLE_MS);
    this.#idle.unref();
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
