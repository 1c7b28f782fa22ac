import { open, rename, rm } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * Writes a whole file so that a crash at any moment leaves either the old file or the new one,
 * never a torn one: write a temp file in the same directory, fsync it, rename over the target,
 * then fsync the directory so the rename itself survives power loss.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
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
  await rename(tmp, path);
  await fsyncDir(dirname(path));
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
