import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../src-main/core/log.js';
import { SampleStore, type SampleStoreOptions } from '../../src-main/core/samples/sample-store.js';
import type { Cleanups } from './cleanups.js';

/**
 * The sample index on a new temporary folder (`<tmp>/<prefix>XXXXXX`), as the unit tests below the
 * core use it: the real SQLite index and files, closed and removed after the test.
 */
export async function tempStore(cleanups: Cleanups, prefix: string, opts?: SampleStoreOptions): Promise<{ dir: string; store: SampleStore }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const store = await SampleStore.open(dir, silentLogger, opts);
  cleanups.push(() => store.close());
  return { dir, store };
}
