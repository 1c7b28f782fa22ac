import { basename, extname, resolve } from 'node:path';
import type { Category } from '../contract/contract.js';
import { importFiles } from '../upload/bulk-import.js';
import { refusals, samplesOf, type ImportedSet } from './exchange.js';
import type { SampleStore } from './sample-store.js';
import { fileKind } from './formats/label-from-filename.js';

/** Single files `samples import` takes as they are (CSV becomes CBOR elsewhere: importCsv). */
export const SINGLE_FILE_EXTENSIONS = ['.wav', '.cbor', '.json'] as const;

/**
 * Recordings (WAV) and acquisition files (JSON/CBOR) become samples, through the bulk import's
 * reader and batches (core/upload/bulk-import.ts): each file is read and hashed once, decoded from
 * those bytes so a broken file is refused here rather than in the sample view, and copied into the
 * data folder (a take from elsewhere becomes the folder's own; a split or crop writes beside it).
 * The copy remembers its source: importing the same file again finds it. `label` undefined = the
 * platform's file-name rule.
 */
export async function importSampleFiles(store: SampleStore, paths: readonly string[], o: { category: Category; label?: string | null; queue: boolean }): Promise<ImportedSet> {
  const problems: ImportedSet['problems'] = [];
  const files: string[] = [];
  for (const path of paths) {
    const full = resolve(path);
    const name = basename(full);
    if (!(SINGLE_FILE_EXTENSIONS as readonly string[]).includes(extname(name).toLowerCase())) {
      problems.push({ path: full, reason: `"${name}": single files must be ${SINGLE_FILE_EXTENSIONS.join(', ')} or .csv (a folder or info.labels imports an export).` });
    } else if (!files.includes(full)) files.push(full);
  }
  // The decoders (cbor-x, zod) are loaded here, not with the module: `samples import` of an export never needs them.
  const { decodeSampleBytes } = await import('../review/decoded.js');
  const outcomes = await importFiles(
    store,
    files,
    { category: o.category, label: o.label, metadata: {}, boundingBoxes: [], addDateId: false, allowDuplicates: false, queue: o.queue, copy: true, check: (path, bytes) => readable(decodeSampleBytes, path, bytes), withSamples: true },
    () => {},
  );
  return { ...samplesOf(store, outcomes), problems: [...problems, ...refusals(outcomes)] };
}

/** A file the sample view could not open is refused now, with what is wrong in it. */
function readable(decode: typeof import('../review/decoded.js').decodeSampleBytes, path: string, bytes: Buffer): string | null {
  const name = basename(path);
  const kind = fileKind(name) === 'audio' ? 'audio' : 'sensor';
  try {
    decode({ name, kind }, bytes);
    return null;
  } catch (err) {
    return `"${name}" is not a readable ${kind === 'audio' ? 'WAV recording' : 'sensor file in the acquisition format'}: ${(err as Error).message}`;
  }
}
