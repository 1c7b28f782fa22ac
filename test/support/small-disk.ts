import { spawnSync } from 'node:child_process';
import { appendFile, mkdtemp, statfs, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Cleanups } from './cleanups.js';

/**
 * A small filesystem of its own (tmpfs), so a test can fill it for real. Needs root to mount; a
 * refused mount throws with the reason. Returns the mount point and how to unmount it.
 */
export async function mountSmallDisk(sizeKb: number, inodes?: number): Promise<{ dir: string; unmount: () => void }> {
  const dir = await mkdtemp(join(tmpdir(), 'cd-disk-'));
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeKb}k${inodes ? `,nr_inodes=${inodes}` : ''}`, 'tmpfs', dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`mount refused (${r.stderr.trim()}): these tests need root to mount a small tmpfs`);
  return { dir, unmount: () => void spawnSync('umount', ['-l', dir]) };
}

/** A small disk for one test: mounted now, unmounted after the test. Returns the mount point. `inodes`: at most that many files and folders. */
export async function smallDisk(cleanups: Cleanups, sizeKb: number, inodes?: number): Promise<string> {
  const { dir, unmount } = await mountSmallDisk(sizeKb, inodes);
  cleanups.push(unmount);
  return dir;
}

/**
 * Fills the disk: to the last byte (one big file, then small appends until the disk says ENOSPC),
 * or until only `leaveKb` are free.
 */
export async function fillDisk(dir: string, leaveKb = 0): Promise<string> {
  const st = await statfs(dir);
  const filler = join(dir, 'filler');
  await writeFile(filler, Buffer.alloc(Math.max(0, st.bavail * st.bsize - Math.max(64, leaveKb) * 1024)));
  if (leaveKb > 0) {
    const now = await statfs(dir);
    await appendFile(filler, Buffer.alloc(Math.max(0, now.bavail * now.bsize - leaveKb * 1024)));
    return filler;
  }
  for (const size of [4096, 512, 1]) {
    try {
      for (;;) await appendFile(filler, Buffer.alloc(size));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
    }
  }
  return filler;
}
