import { spawn, type ChildProcess } from 'node:child_process';
import { close, fsync, open, rename, rm, write } from 'node:fs';
import type { Socket } from 'node:net';
import { WriteWorker, type WriteRequest } from './write-worker.js';

/** A new file written at `temp` (a name of its own, which must not exist yet), then moved to `to` in the same folder. */
export interface SyncedWrite {
  temp: string;
  to: string;
  /**
   * Handed over: where these bytes are the whole of their ArrayBuffer, that buffer is moved to the
   * writer thread and left empty (detached) here; the caller reads what it needs before writeSynced.
   */
  data: Uint8Array;
}

/**
 * Writes many new files to their temp names in `dir`, each complete and on disk before this
 * resolves: written first, then made durable together. On Linux that is one syncfs(2) of the
 * folder's file system for the whole batch (`sync -f`, as Node has no binding for it: see
 * FileSystemSync): the disk gets the files' blocks in a few large writes and one cache flush,
 * where an fsync per small file costs a flush each and a disk does some hundreds a second whatever
 * runs in parallel. Where that is not available (another OS, no coreutils, an error), each file is
 * fsynced. The files are written on a thread of their own (write-worker.ts). On a failure every
 * temp file is removed and the first error thrown.
 */
export async function writeSynced(dir: string, files: readonly SyncedWrite[]): Promise<void> {
  try {
    await fileOps().write(files);
    // fileOps() again: a sync on a loaded disk can outlast the writer thread's idle time (it ended
    // meanwhile), and the fsyncs must run, or fail with the file system's own error, not "closed".
    if (!(await syncFileSystem(dir))) await fileOps().fsync(files.map((f) => f.temp));
  } catch (err) {
    await removeAll(files.map((f) => f.temp));
    throw err;
  }
}

/**
 * Moves the written files to their places, in the order given; a caller that needs some renamed
 * before others (a sample's sidecar before its file) calls this once per group. On a failure the
 * files already moved and the temp files are removed, and the first error thrown. The caller syncs
 * the folder once afterwards.
 */
export async function renameAll(files: readonly SyncedWrite[]): Promise<void> {
  try {
    await fileOps().rename(files);
  } catch (err) {
    await removeAll([...((err as { done?: string[] }).done ?? []), ...files.map((f) => f.temp)]);
    throw err;
  }
}

/** Removes the files, those that exist; never throws. */
export async function removeAll(paths: readonly string[]): Promise<void> {
  await fileOps().remove(paths).catch(() => {});
}

/** What writeSynced and renameAll do to files, on the writer thread or, where none can run, through the thread pool. */
interface FileOps {
  write(files: readonly SyncedWrite[]): Promise<void>;
  fsync(paths: readonly string[]): Promise<void>;
  /** Rejects with `done`: the files moved before the error. */
  rename(files: readonly SyncedWrite[]): Promise<void>;
  remove(paths: readonly string[]): Promise<void>;
}

let writer: WriteWorker | null = null;

function fileOps(): FileOps {
  if (!writer?.usable) {
    try {
      writer = new WriteWorker();
    } catch {
      writer = null;
    }
  }
  const w = writer;
  if (!w) return callbackOps;
  return {
    // A part at a time (see PART_BYTES): the next is made while the thread writes this one, and
    // no further until the one before it is written, so at most two are on their way.
    write: async (files) => {
      const moved = movable(files);
      const sent: Array<Promise<unknown>> = [];
      try {
        for (let i = 0; i < files.length;) {
          const end = partEnd(files, i);
          const slice = files.slice(i, end);
          // A buffer the runtime will not move (DataCloneError, nothing moved yet): that part copied instead.
          const p = w.run(part(slice, moved)).catch((err: Error) => (err.name === 'DataCloneError' ? w.run(part(slice, new Set())) : Promise.reject(err)));
          p.catch(() => {}); // awaited below
          sent.push(p);
          if (sent.length > 1) await sent.at(-2);
          i = end;
        }
        await sent.at(-1);
      } finally {
        await Promise.allSettled(sent); // after a failure, the part still being written is done before the temp files are removed
      }
    },
    fsync: async (paths) => void (await w.run({ op: 'fsync', paths: [...paths] })),
    rename: async (files) => void (await w.run({ op: 'rename', pairs: files.map((f) => [f.temp, f.to]) })),
    remove: async (paths) => void (await w.run({ op: 'remove', paths: [...paths] })),
  };
}

/**
 * Bytes in one message to the writer thread at most (one file bigger than this goes alone). A file
 * whose bytes are the whole of their ArrayBuffer (each file over 64 KiB that an import read) has
 * that buffer moved to the thread; the others (small files that share a read slab, sidecars) are
 * copied into one buffer per part. So a batch of 256 big WAVs is never copied whole beside the
 * bytes read.
 */
const PART_BYTES = 32 * 1024 * 1024;

/** Where the part that starts at `from` ends: PART_BYTES at most, one file at least. */
function partEnd(files: readonly SyncedWrite[], from: number): number {
  let end = from + 1;
  let bytes = files[from]!.data.byteLength;
  while (end < files.length && bytes + files[end]!.data.byteLength <= PART_BYTES) bytes += files[end++]!.data.byteLength;
  return end;
}

/** The buffers that can be moved to the thread: each file's own, whole (no offset, nothing beside it), and no other file's. */
function movable(files: readonly SyncedWrite[]): Set<ArrayBufferLike> {
  const uses = new Map<ArrayBufferLike, number>();
  for (const f of files) uses.set(f.data.buffer, (uses.get(f.data.buffer) ?? 0) + 1);
  const moved = new Set<ArrayBufferLike>();
  for (const { data } of files) {
    if (data.buffer instanceof ArrayBuffer && uses.get(data.buffer) === 1 && data.byteOffset === 0 && data.byteLength === data.buffer.byteLength && data.byteLength > 0) moved.add(data.buffer);
  }
  return moved;
}

/** One message's files: buffer 0 holds a copy of the bytes of those whose buffer is not moved. */
function part(files: readonly SyncedWrite[], moved: ReadonlySet<ArrayBufferLike>): WriteRequest {
  const copy = new Uint8Array(files.reduce((n, f) => (moved.has(f.data.buffer) ? n : n + f.data.byteLength), 0));
  const buffers: ArrayBuffer[] = [copy.buffer];
  let at = 0;
  const placed = files.map(({ temp: path, data }) => {
    const n = data.byteLength;
    if (moved.has(data.buffer)) return { path, buffer: buffers.push(data.buffer as ArrayBuffer) - 1, at: 0, n };
    copy.set(data, at);
    at += n;
    return { path, buffer: 0, at: at - n, n };
  });
  return { op: 'write', files: placed, buffers };
}

/** Files in flight at once on the thread pool: enough to keep it busy, few enough to leave descriptors for the rest of the app. */
const LANES = 16;

/** Raw descriptors, not FileHandles, which cost a small file more than its write. */
const callbackOps: FileOps = {
  write: (files) => inLanes(files, (f, done) => writeOne(f.temp, f.data, done)),
  fsync: (paths) => inLanes(paths, (p, done) => fsyncOne(p, done)),
  rename: async (files) => {
    const done: string[] = [];
    try {
      await inLanes(files, (f, next) => rename(f.temp, f.to, (err) => {
        if (!err) done.push(f.to);
        next(err);
      }));
    } catch (err) {
      throw Object.assign(err as Error, { done });
    }
  },
  remove: (paths) => inLanes(paths, (p, done) => rm(p, { force: true }, () => done(null))),
};

/**
 * syncfs(2) of the file system holding `dir`; false when it cannot be done here (another OS, no
 * `sh` or no `sync -f`, an error), and then never tried again in this process: the caller fsyncs
 * file by file.
 */
function syncFileSystem(dir: string): Promise<boolean> {
  if (process.platform !== 'linux' || syncer === 'broken') return Promise.resolve(false);
  syncer ??= new FileSystemSync();
  return syncer.sync(dir);
}

let syncer: FileSystemSync | 'broken' | null = null;

/** How long the shell waits for the next batch before it ends (a new one starts on the next). */
const IDLE_MS = 5000;

/**
 * One `sh` that runs `sync -f` for each folder written to its stdin and answers a line each. A
 * fork of the app or the CLI (a big process) costs ~10 ms of CPU, once per batch that was a tenth
 * of an import's time; the shell's own fork of `sync` costs next to nothing. One sync runs at a
 * time; batches that ask while it runs share the next one (it starts after all their files were
 * written, so it covers them all), as a database's group commit does. The shell ends when idle,
 * and keeps the process alive only while an answer is owed.
 */
class FileSystemSync {
  #shell: Shell | null = null;
  #idle: NodeJS.Timeout | null = null;

  sync(dir: string): Promise<boolean> {
    if (dir.includes('\n')) return Promise.resolve(false); // cannot be sent as a line: fsync each file
    if (this.#idle) clearTimeout(this.#idle);
    this.#idle = null;
    const shell = (this.#shell ??= this.#start());
    // Kept alive while an answer is owed (nothing else may be: the CLI just awaits it), not after.
    (shell.child.stdout as Socket).ref();
    return new Promise((resolve) => {
      const last = shell.syncs.at(-1);
      if (shell.syncs.length > 1 && last!.dir === dir) return void last!.waiters.push(resolve); // not started yet: it covers these files too
      shell.syncs.push({ dir, waiters: [resolve] });
      if (shell.syncs.length === 1) shell.child.stdin!.write(`${dir}\n`);
    });
  }

  #start(): Shell {
    const child = spawn('sh', ['-c', 'while IFS= read -r d; do if sync -f -- "$d" 2>/dev/null; then echo 0; else echo 1; fi; done'], { stdio: ['pipe', 'pipe', 'ignore'] });
    const shell: Shell = { child, syncs: [] };
    child.unref();
    (child.stdout as Socket).unref();
    (child.stdin as Socket).unref();
    child.stdin!.on('error', () => {}); // a shell that died: answered below
    let pending = '';
    child.stdout!.setEncoding('utf8').on('data', (text: string) => {
      pending += text;
      for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
        const ok = pending.slice(0, nl) === '0';
        pending = pending.slice(nl + 1);
        if (!ok) syncer = 'broken';
        for (const w of shell.syncs.shift()?.waiters ?? []) w(ok);
        if (shell.syncs.length > 0) child.stdin!.write(`${shell.syncs[0]!.dir}\n`);
      }
      if (shell.syncs.length > 0) return;
      (child.stdout as Socket).unref();
      if (this.#shell === shell) {
        this.#idle = setTimeout(() => this.#stop(shell), IDLE_MS);
        this.#idle.unref();
      }
    });
    const gone = () => {
      if (this.#shell === shell) this.#shell = null;
      if (shell.syncs.length > 0) syncer = 'broken'; // it died with work to do (no sh, killed): fsync each file from now on
      for (const s of shell.syncs.splice(0)) for (const w of s.waiters) w(false);
    };
    child.on('error', gone);
    child.on('exit', gone);
    return shell;
  }

  #stop(shell: Shell): void {
    this.#idle = null;
    if (this.#shell !== shell || shell.syncs.length > 0) return;
    this.#shell = null;
    shell.child.stdin!.end();
  }
}

/** The shell, and the syncs asked of it: the first is running, the others wait their turn. */
interface Shell {
  child: ChildProcess;
  syncs: Array<{ dir: string; waiters: Array<(ok: boolean) => void> }>;
}

function writeOne(path: string, data: Uint8Array, done: (err: NodeJS.ErrnoException | null) => void): void {
  // 'wx': a temp name is new; 0o600 as writeFileAtomic's temp files (the samples are the user's alone).
  open(path, 'wx', 0o600, (err, fd) => {
    if (err) return done(err);
    const finish = (e: NodeJS.ErrnoException | null) => close(fd, (e2) => done(e ?? e2 ?? null));
    const rest = (at: number): void => {
      if (at >= data.byteLength) return finish(null);
      write(fd, data, at, data.byteLength - at, null, (e, n) => (e ? finish(e) : rest(at + n)));
    };
    rest(0);
  });
}

function fsyncOne(path: string, done: (err: NodeJS.ErrnoException | null) => void): void {
  // r+: Windows flushes a file only through a handle that may write it.
  open(path, 'r+', (err, fd) => {
    if (err) return done(err);
    fsync(fd, (e) => close(fd, (e2) => done(e ?? e2 ?? null)));
  });
}

/** Runs `step` over the items, LANES at a time; stops starting new ones at the first error and rejects with it once those running are done. */
function inLanes<T>(items: readonly T[], step: (item: T, done: (err: NodeJS.ErrnoException | null) => void) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let next = 0;
    let running = 0;
    let failed: NodeJS.ErrnoException | null = null;
    const pump = (): void => {
      while (running < LANES && next < items.length && failed === null) {
        running++;
        step(items[next++]!, (err) => {
          running--;
          if (err && failed === null) failed = err;
          pump();
        });
      }
      if (running === 0 && (next >= items.length || failed !== null)) {
        if (failed) reject(failed);
        else resolve();
      }
    };
    pump();
  });
}
