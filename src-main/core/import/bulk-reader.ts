import { close, fstat, open, read } from 'node:fs';

/** A file's whole content, or why it was not read: too big to keep in memory, or unreadable. */
export type ReadResult =
  | { path: string; bytes: Buffer }
  | { path: string; bytes: null; tooBig: true }
  | { path: string; bytes: null; tooBig: false; error: string };

/** Most sensor files fit: one read answers them (and tells their size) without a stat first. */
const SCRATCH_BYTES = 64 * 1024;

/**
 * Reads many files with a few reads in flight, `lanes` at a time, and keeps their order. Small
 * files cost three calls (open, read, close) instead of readFile's four plus a stat; each lane
 * reuses one scratch buffer and copies out just the bytes read. Files over `keepLimit` bytes are
 * left to the caller to stream.
 */
export function readFiles(paths: string[], lanes: number, keepLimit: number): Promise<ReadResult[]> {
  const out: ReadResult[] = new Array(paths.length);
  let next = 0;
  return new Promise((resolve) => {
    let running = Math.min(lanes, paths.length);
    if (running === 0) return resolve(out);
    const lane = (scratch: Buffer) => {
      if (next >= paths.length) {
        if (--running === 0) resolve(out);
        return;
      }
      const i = next++;
      readWhole(paths[i]!, scratch, keepLimit, (r) => {
        out[i] = r;
        lane(scratch);
      });
    };
    for (let k = running; k > 0; k--) lane(Buffer.allocUnsafeSlow(SCRATCH_BYTES));
  });
}

function readWhole(path: string, scratch: Buffer, keepLimit: number, done: (r: ReadResult) => void): void {
  const fail = (err: NodeJS.ErrnoException, fd?: number) => {
    if (fd !== undefined) close(fd, () => {});
    done({ path, bytes: null, tooBig: false, error: `cannot read it (${err.code ?? err.message})` });
  };
  open(path, 'r', (err, fd) => {
    if (err) return fail(err);
    read(fd, scratch, 0, scratch.length, 0, (err2, n) => {
      if (err2) return fail(err2, fd);
      if (n < scratch.length) {
        // A short read of a regular file is its end: the content is what we have.
        close(fd, () => {});
        const bytes = Buffer.allocUnsafe(n);
        scratch.copy(bytes, 0, 0, n);
        return done({ path, bytes });
      }
      fstat(fd, (err3, st) => {
        if (err3) return fail(err3, fd);
        if (st.size > keepLimit) {
          close(fd, () => {});
          return done({ path, bytes: null, tooBig: true });
        }
        const bytes = Buffer.allocUnsafe(Math.max(st.size, n));
        scratch.copy(bytes, 0, 0, n);
        readRest(fd, bytes, n, (err4, end) => {
          if (err4) return fail(err4, fd);
          close(fd, () => {});
          done({ path, bytes: end < bytes.length ? bytes.subarray(0, end) : bytes });
        });
      });
    });
  });
}

/** Reads until the buffer is full or the file ends (it may have shrunk since fstat). */
function readRest(fd: number, into: Buffer, at: number, done: (err: NodeJS.ErrnoException | null, end: number) => void): void {
  if (at >= into.length) return done(null, at);
  read(fd, into, at, into.length - at, at, (err, n) => {
    if (err) return done(err, at);
    if (n === 0) return done(null, at);
    readRest(fd, into, at + n, done);
  });
}
