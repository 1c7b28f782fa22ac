import { Worker } from 'node:worker_threads';

/** One request to the writer thread; every path is absolute. */
export type WriteRequest =
  | { op: 'write'; files: Array<{ path: string; at: number; n: number }>; buffer: ArrayBuffer }
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
  /** write: start and length of each file's bytes in `buffer`; rename: unused. */
  spans?: Float64Array;
  /** rename: the new names, as `paths` holds the old ones. */
  to?: string;
  buffer?: ArrayBuffer;
}

function toWire(id: number, r: WriteRequest): { wire: Wire; transfer: ArrayBuffer[] } {
  if (r.op === 'write') {
    const spans = new Float64Array(r.files.length * 2);
    r.files.forEach((f, i) => {
      spans[2 * i] = f.at;
      spans[2 * i + 1] = f.n;
    });
    return { wire: { id, op: r.op, paths: r.files.map((f) => f.path).join('\0'), spans, buffer: r.buffer }, transfer: [r.buffer, spans.buffer as ArrayBuffer] };
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
parentPort.on('message', ({ id, op, paths, spans, to, buffer }) => {
  const list = paths === '' ? [] : paths.split('\0');
  const done = [];
  let error = null;
  try {
    if (op === 'write') {
      const bytes = new Uint8Array(buffer);
      list.forEach((path, i) => {
        const start = spans[2 * i];
        const n = spans[2 * i + 1];
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
      this.#worker.postMessage(wire, transfer);
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
