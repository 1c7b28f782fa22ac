import { closeSync, fsyncSync, openSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * Writes a whole file so that a crash at any moment leaves either the old file or the new one,
 * never a torn one: write a temp file in the same directory, fsync it, rename over the target,
 * then fsync the directory so the rename itself survives power loss.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, o: { syncDir?: boolean } = {}): Promise<void> {
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const fh = await open(tmp, 'w', 0o600);
  try {
    await fh.writeFile(data);
    await fh.sync();
  } catch (err) {
    await fh.close();
    await rm(tmp, { force: true });
    throw err;
  }
  await fh.close();
  try {
    await replaceFile(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  // A caller writing many files into one folder (sidecars) syncs the folder once for all of them.
  if (o.syncDir !== false) await fsyncDir(dirname(path));
}

/** Codes Windows gives while another program (a virus scanner, the search indexer) has the target open. */
const TRANSIENT_ON_WINDOWS = new Set(['EPERM', 'EACCES', 'EBUSY']);

/**
 * rename() over an existing file. On Windows that fails for a moment whenever a scanner or the
 * indexer has just opened the new file or the old one; waiting a little and trying again is what
 * every Windows-hardened writer does (graceful-fs, write-file-atomic). Elsewhere such a code means
 * a real permission problem and is thrown at once.
 */
export async function replaceFile(
  from: string,
  to: string,
  o: { platform?: NodeJS.Platform; rename?: (a: string, b: string) => Promise<void>; sleep?: (ms: number) => Promise<void> } = {},
): Promise<void> {
  const platform = o.platform ?? process.platform;
  const doRename = o.rename ?? rename;
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  // About 2.5 s in all: longer than a scan of a small file takes, short enough not to stall a save.
  const waits = platform === 'win32' ? [10, 20, 40, 80, 160, 320, 640, 1280] : [];
  for (let attempt = 0; ; attempt++) {
    try {
      await doRename(from, to);
      return;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      const wait = waits[attempt];
      if (wait === undefined || !TRANSIENT_ON_WINDOWS.has(code)) throw err;
      await sleep(wait);
    }
  }
}

/** fsyncDir for a caller that cannot wait (a synchronous path), with the same rule for Windows. */
export function fsyncDirSync(dir: string): void {
  if (process.platform === 'win32') return;
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Makes a rename or create in `dir` durable. */
export async function fsyncDir(dir: string): Promise<void> {
  // Windows cannot open a directory for fsync; its rename is already durable enough there.
  if (process.platform === 'win32') return;
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}
