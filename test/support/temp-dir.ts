import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useBeforeAll } from './before-all.js';

/**
 * A temporary folder (`<tmp>/<prefix>XXXXXX`) for a whole test file, made before its tests; the
 * returned getter gives its path inside a test or hook. Removed after the file's tests unless
 * `keep` (a failed run's data folders can then be looked at).
 */
export function useTempDir(prefix: string, o: { keep?: boolean } = {}): () => string {
  return useBeforeAll('the temporary folder', () => mkdtemp(join(tmpdir(), prefix)), {
    ...(o.keep ? {} : { after: (dir: string) => rm(dir, { recursive: true, force: true }) }),
  });
}
