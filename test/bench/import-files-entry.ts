// Bundled by import-files.mjs (benchmark section "import-files"): `samples import` of single files
// in this process, through the same SampleStore and importSampleFiles the CLI runs, with the CLI's
// import pragmas (cli/samples.ts), without the process start, the argument parsing and the output.
import { stderrLogger } from '../../src-main/core/log.js';
import { importSampleFiles } from '../../src-main/core/import/single-files.js';
import { SampleStore } from '../../src-main/core/samples/sample-store.js';

/** Timed from the store's opening to its closing. */
export async function importInProcess(dataDir: string, paths: string[]): Promise<{ ms: number; added: number; problems: number }> {
  const start = performance.now();
  const store = await SampleStore.open(dataDir, stderrLogger({ command: 'bench import-files' }));
  store.db.pragma('synchronous = NORMAL');
  store.db.pragma('wal_autocheckpoint = 0');
  store.db.pragma('cache_size = -32768');
  let r;
  try {
    r = await importSampleFiles(store, paths, { category: 'training', queue: false });
  } finally {
    await store.close({ foldJournal: false });
  }
  return { ms: performance.now() - start, added: r.added.length, problems: r.problems.length };
}
