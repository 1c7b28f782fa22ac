// Makes a benchmark's input files cold before a timed step, so the step reads them from disk as a
// first import or upload does. Only those files leave the page cache (POSIX_FADV_DONTNEED, file by
// file): the rest of a shared machine's cache stays. Dirty pages cannot be dropped, so sync after
// writing the files. BENCH_DROP_CACHES=0 leaves the cache warm.
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';

const EVICT_PY = `import os, sys
for root, _, names in os.walk(sys.argv[1]):
    for n in names:
        fd = os.open(os.path.join(root, n), os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)`;

/** Runs a command with no output; resolves true if it exited 0. */
export function runQuiet(cmd, args) {
  return new Promise((resolve) => spawn(cmd, args, { stdio: 'ignore' }).on('error', () => resolve(false)).on('close', (code) => resolve(code === 0)));
}

/**
 * Evicts every file under `dir` from the page cache; says which cache the step will see.
 * `dropAll`: where that fails, drop the whole page cache if the kernel lets us (root outside a container).
 */
export async function evictFiles(dir, { dropAll = false } = {}) {
  if (process.env.BENCH_DROP_CACHES === '0') return 'warm cache';
  if (await runQuiet('python3', ['-c', EVICT_PY, dir])) return 'cold cache (files evicted)';
  if (!dropAll) return 'warm cache (could not evict)';
  try {
    await runQuiet('sync', []);
    await writeFile('/proc/sys/vm/drop_caches', '3');
    return 'cold cache (all caches dropped)';
  } catch {
    return 'warm cache';
  }
}
