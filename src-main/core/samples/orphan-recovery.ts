import { readdir, readFile, rm } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import type { IndexRebuild } from '../contract/contract.js';
import type { Logger } from '../log.js';
import type { IndexDamage } from './index-open.js';
import type { RebuiltRow } from './sample-rebuild.js';
import type { SampleRow } from './sample-row.js';
import { SAMPLES_DIR, sha256, storedName } from './sample-files.js';
import { readSidecar, SIDECAR_SUFFIX, sidecarName } from './sidecar.js';

/**
 * Files in samples/ with no row: one left by a crash between writing a file and indexing it, or
 * all of them when the index was lost (`lost`). Each comes back from its sidecar if it has one,
 * else from its own contents with a note saying what was lost, and `insert` indexes them all at
 * once. No sample file is deleted here; only temp files of writes that never finished are. A
 * healthy start reads no sidecar. Returns the report of a rebuilt index, or null.
 */
export async function recoverOrphans(
  dataDir: string,
  known: Set<string>,
  lost: IndexDamage | null,
  log: Logger,
  insert: (rows: SampleRow[]) => void,
): Promise<IndexRebuild | null> {
  const dir = join(dataDir, SAMPLES_DIR);
  const owned = new Set([...known].map((file) => basename(file)));
  const rebuilt: RebuiltRow[] = [];
  let rebuild: typeof import('./sample-rebuild.js') | undefined;
  for (const f of await readdir(dir)) {
    if (owned.has(f) || f.endsWith(SIDECAR_SUFFIX)) continue;
    if (f.startsWith('.') && f.endsWith('.tmp')) {
      await rm(join(dir, f), { force: true }); // a write that never finished: it was never promised to anyone
      continue;
    }
    // Loaded only when a file needs it: its decoders (zod, cbor-x) cost a command like `upload` ~0.1 s of start-up.
    rebuild ??= await import('./sample-rebuild.js');
    const { LOST_NOTE, rowFromContents, rowFromSidecar } = rebuild;
    const bytes = await readFile(join(dir, f));
    const found = { id: basename(f, extname(f)), file: storedName(f), bytes, sha256: sha256(bytes) };
    const side = await readSidecar(join(dir, sidecarName(found.id)));
    rebuilt.push(
      side.ok
        ? rowFromSidecar(found, side.sidecar)
        : rowFromContents(found, f, lost ? LOST_NOTE : 'recovered after an interrupted save; check label and category'),
    );
    if (!lost) log.warn('re-indexed a sample file that had no index row', { file: f, from: side.ok ? 'sidecar' : 'contents' });
  }
  insert(rebuilt.map((r) => r.row));
  if (!lost || (rebuilt.length === 0 && lost.keptAs.length === 0)) return null;
  const report = (rebuild ?? (await import('./sample-rebuild.js'))).rebuildReport(lost, rebuilt);
  log.warn('sample index rebuilt', { ...report });
  return report;
}
