import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/**
 * `mkdir -p` one folder at a time. Node 20's `mkdir(…, { recursive: true })` never returns for a
 * path under /proc it cannot create (`--out /proc/x` or `--data-dir /proc/x` hung the CLI): its
 * loop retries ENOENT from a parent that exists. Plain mkdir answers every such case with an error,
 * so the missing folders are made from the deepest one that exists downwards.
 */
export async function makeDirs(path: string, mode?: number): Promise<void> {
  const missing: string[] = [];
  let dir = resolve(path);
  for (;;) {
    try {
      const s = await stat(dir);
      // (A file higher up makes stat answer ENOTDIR, thrown below.)
      if (!s.isDirectory()) throw Object.assign(new Error(`EEXIST: file already exists, mkdir '${dir}'`), { code: 'EEXIST', path: dir });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    const up = dirname(dir);
    missing.push(dir);
    if (up === dir) break;
    dir = up;
  }
  for (const d of missing.reverse()) {
    try {
      await mkdir(d, mode === undefined ? undefined : { mode });
    } catch (err) {
      // Made by another process between the look and the mkdir: as good as made here.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || !(await stat(d)).isDirectory()) throw err;
    }
  }
}
