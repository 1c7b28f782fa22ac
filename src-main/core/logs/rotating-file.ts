import { close as closeCb, closeSync, fstatSync, mkdirSync, open as openCb, openSync, write as writeCb, writeSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

// Raw descriptors rather than FileHandles: flushSync must be able to write on the same one at exit.
const open = promisify(openCb);
const close = promisify(closeCb);
const write = promisify(writeCb);

export const DEFAULT_LOG_MAX_BYTES = 5 * 1024 * 1024;
/** Old files kept beside the current one: name.1 (newest) … name.4 (oldest). */
export const DEFAULT_LOG_KEEP = 4;
/** Lines waiting for the disk beyond this are dropped (and counted) rather than grow memory without end. */
export const MAX_PENDING_BYTES = 8 * 1024 * 1024;

export interface RotatingFileOptions {
  dir: string;
  /** e.g. "capture-desk.log"; old files are "capture-desk.log.1" … */
  name: string;
  /** The current file is rotated before a line would take it past this size. */
  maxBytes?: number;
  keep?: number;
  /** Told once, when the file cannot be opened or written; the file sink then stops and the app goes on. */
  onError(message: string): void;
}

/**
 * Log lines appended to a size-capped file, with a few older files kept.
 *
 * Lines are buffered and written together once per event-loop turn, asynchronously, so logging
 * never waits on the disk where a capture is running. The file is opened in append mode: a restart
 * continues it, and nothing written before a kill is lost. Rotation renames oldest first
 * (.3 → .4 … current → .1) and only then starts a new current file, so a kill at any point leaves
 * every line in some file.
 */
export class RotatingLogFile {
  readonly path: string;
  readonly #o: Required<Omit<RotatingFileOptions, 'onError'>> & Pick<RotatingFileOptions, 'onError'>;
  #fd: number | null = null;
  #size = 0;
  #pending: string[] = [];
  #pendingBytes = 0;
  #dropped = 0;
  #scheduled: NodeJS.Immediate | null = null;
  #draining: Promise<void> | null = null;
  #failed = false;
  #closed = false;

  constructor(opts: RotatingFileOptions) {
    this.#o = { ...opts, maxBytes: opts.maxBytes ?? DEFAULT_LOG_MAX_BYTES, keep: opts.keep ?? DEFAULT_LOG_KEEP };
    this.path = join(opts.dir, opts.name);
    try {
      mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
      this.#fd = openSync(this.path, 'a', 0o600);
      this.#size = fstatSync(this.#fd).size;
    } catch (err) {
      this.#fail(`cannot open the log file ${this.path} (${messageOf(err)}); logging to stderr only`);
    }
  }

  /** False once the file could not be opened or written. */
  get working(): boolean {
    return !this.#failed && !this.#closed;
  }

  /** Queues one line (ending in a newline); it reaches the disk within the next event-loop turn. */
  write(line: string): void {
    if (!this.working) return;
    if (this.#pendingBytes + line.length > MAX_PENDING_BYTES) {
      this.#dropped += 1;
      return;
    }
    this.#pending.push(line);
    this.#pendingBytes += line.length;
    this.#scheduled ??= setImmediate(() => {
      this.#scheduled = null;
      void this.flush();
    });
  }

  /** Resolves when every line queued so far is in the file. */
  async flush(): Promise<void> {
    while (this.#draining || (this.#pending.length > 0 && this.working)) {
      this.#draining ??= this.#drain().finally(() => (this.#draining = null));
      await this.#draining;
    }
  }

  async close(): Promise<void> {
    await this.flush();
    this.#closed = true;
    if (this.#scheduled) clearImmediate(this.#scheduled);
    const fd = this.#fd;
    this.#fd = null;
    if (fd !== null) closeSync(fd);
  }

  /**
   * For process exit, when no more turns of the event loop will come: what is still queued is
   * written synchronously (no rotation; the cap may be passed by these last lines).
   */
  flushSync(): void {
    if (!this.working || this.#fd === null || this.#pending.length === 0) return;
    try {
      writeSync(this.#fd, this.#pending.splice(0).join(''));
      this.#pendingBytes = 0;
    } catch {
      // Exiting: there is nowhere left to report this.
    }
  }

  async #drain(): Promise<void> {
    while (this.#pending.length > 0 && this.working && this.#fd !== null) {
      if (this.#dropped > 0) {
        const note = { t: new Date().toISOString(), level: 'warn', msg: 'log lines dropped: the disk did not keep up', dropped: this.#dropped };
        this.#pending.push(JSON.stringify(note) + '\n');
        this.#dropped = 0;
      }
      // As many lines as fit under the cap; a single line longer than the cap gets a file of its own.
      let taken = 0;
      let bytes = 0;
      for (const line of this.#pending) {
        const n = Buffer.byteLength(line);
        if (this.#size + bytes + n > this.#o.maxBytes && this.#size + bytes > 0) break;
        bytes += n;
        taken += 1;
      }
      const chunk = this.#pending.splice(0, taken).join('');
      this.#pendingBytes -= chunk.length;
      try {
        if (taken > 0) await writeAll(this.#fd, chunk);
        this.#size += bytes;
        if (this.#pending.length > 0) await this.#rotate();
      } catch (err) {
        this.#fail(`cannot write the log file ${this.path} (${messageOf(err)}); logging to stderr only from now on`);
      }
    }
  }

  async #rotate(): Promise<void> {
    const fd = this.#fd;
    this.#fd = null;
    if (fd !== null) await close(fd);
    for (let i = this.#o.keep - 1; i >= 1; i--) await renameIfThere(`${this.path}.${i}`, `${this.path}.${i + 1}`);
    if (this.#o.keep > 0) await renameIfThere(this.path, `${this.path}.1`);
    // With nothing kept, the one file starts over.
    this.#fd = await open(this.path, this.#o.keep > 0 ? 'a' : 'w', 0o600);
    this.#size = 0;
  }

  #fail(message: string): void {
    if (this.#failed) return;
    this.#failed = true;
    this.#pending = [];
    this.#pendingBytes = 0;
    if (this.#fd !== null) {
      try {
        closeSync(this.#fd);
      } catch {
        // already unusable; the message below says so
      }
      this.#fd = null;
    }
    this.#o.onError(message);
  }
}

async function writeAll(fd: number, text: string): Promise<void> {
  const buf = Buffer.from(text);
  let off = 0;
  while (off < buf.length) {
    const { bytesWritten } = await write(fd, buf, off, buf.length - off);
    off += bytesWritten;
  }
}

async function renameIfThere(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
