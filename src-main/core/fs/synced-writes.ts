import { execFile } from 'node:child_process';
import { close, fsync, open, rename, rm, write } from 'node:fs';

/** A new file written under a temp name in the folder of `to`, then moved there. */
export interface SyncedWrite {
  temp: string;
  to: string;
  data: Uint8Array;
}

/** Files in flight at once: enough to keep the thread pool busy, few enough to leave descriptors for the rest of the app. */
const LANES = 16;

/**
 * Writes many new files to their temp names in `dir`, each complete and on disk before this
 * resolves: written first, then made durable together. On Linux that is one syncfs(2) of the
 * folder's file system for the whole batch (`sync -f`, as Node has no binding for it): the disk
 * gets the files' blocks in a few large writes and one cache flush, where an fsync per small file
 * costs a flush each and a disk does some hundreds a second whatever runs in parallel. Where that is
 * not available (another OS, no coreutils, an error), each file is fsynced, a few at a time.
 * Raw descriptors, not FileHandles, which cost a small file more than its write. On a failure every
 * temp file is removed and the first error thrown.
 */
export async function writeSynced(dir: string, files: readonly SyncedWrite[]): Promise<void> {
  try {
    await inLanes(files, (f, done) => writeOne(f.temp, f.data, done));
    if (!(await syncFileSystem(dir))) await inLanes(files, (f, done) => fsyncOne(f.temp, done));
  } catch (err) {
    await removeAll(files.map((f) => f.temp));
    throw err;
  }
}

/** false once `sync -f` failed here: the rest of the run fsyncs file by file without trying again. */
let syncfsWorks = process.platform === 'linux';

/** syncfs(2) of the file system holding `dir`; false when it could not be done (the caller fsyncs each file). */
function syncFileSystem(dir: string): Promise<boolean> {
  if (!syncfsWorks) return Promise.resolve(false);
  return new Promise((resolve) => {
    execFile('sync', ['-f', dir], { timeout: 120_000 }, (err) => {
      if (err) syncfsWorks = false;
      resolve(!err);
    });
  });
}

/**
 * Moves the written files to their places, in the order given; a caller that needs some renamed
 * before others (a sample's sidecar before its file) calls this once per group. On a failure the
 * files already moved and the temp files are removed, and the first error thrown. The caller syncs
 * the folder once afterwards.
 */
export async function renameAll(files: readonly SyncedWrite[]): Promise<void> {
  const moved: string[] = [];
  try {
    await inLanes(files, (f, done) => rename(f.temp, f.to, (err) => {
      if (!err) moved.push(f.to);
      done(err);
    }));
  } catch (err) {
    await removeAll([...moved, ...files.map((f) => f.temp)]);
    throw err;
  }
}

export async function removeAll(paths: readonly string[]): Promise<void> {
  await inLanes(paths, (p, done) => rm(p, { force: true }, () => done(null))).catch(() => {});
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
