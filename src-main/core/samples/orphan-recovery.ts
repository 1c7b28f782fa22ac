import { opendirSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
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
  /** Names in samples/ of the files the index owns (OpenedIndex.ownedNames). */
  owned: ReadonlySet<string>,
  lost: IndexDamage | null,
  log: Logger,
  insert: (rows: SampleRow[]) => void,
): Promise<IndexRebuild | null> {
  const dir = join(dataDir, SAMPLES_DIR);
  const rebuilt: RebuiltRow[] = [];
  let rebuild: typeof import('./sample-rebuild.js') | undefined;
  for (const f of unowned(dir, owned)) {
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

/** Directory entries read per call; a folder of 20,000 samples holds 40,000 (files and sidecars). */
const ENTRIES_PER_READ = 1024;

/**
 * The names in `dir` that are neither owned files nor sidecars, sorted (a rebuilt index gets its
 * rows in the order of the files' time-ordered ids). Every start lists the whole folder, so this
 * grows with it: read unsorted in large batches and only the few names left sorted, it costs a
 * folder of 40,000 entries about half the CPU of readdir(), which sorts them all on the thread
 * pool first (~22 vs ~57 ms, node:fs's own figures on this project's VM under load).
 */
function unowned(dir: string, owned: ReadonlySet<string>): string[] {
  const left: string[] = [];
  const d = opendirSync(dir, { bufferSize: ENTRIES_PER_READ });
  try {
    for (let e = d.readSync(); e !== null; e = d.readSync()) {
      if (!owned.has(e.name) && !e.name.endsWith(SIDECAR_SUFFIX)) left.push(e.name);
    }
  } finally {
    d.closeSync();
  }
  return left.sort();
}
