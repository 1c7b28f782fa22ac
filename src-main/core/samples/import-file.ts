import { readFile } from 'node:fs/promises';
import { basename, extname, resolve } from 'node:path';
import type { Category, Sample } from '../contract.js';
import { CoreError } from '../errors.js';
import { decodeSampleBytes } from '../review/decoded.js';
import type { SampleStore } from './sample-store.js';
import { deriveLabel, fileKind } from './formats/label-from-filename.js';

/** Single files `samples import` takes as they are (CSV becomes CBOR elsewhere: importCsv). */
export const SINGLE_FILE_EXTENSIONS = ['.wav', '.cbor', '.json'] as const;

/**
 * One recording (WAV) or acquisition file (JSON/CBOR) becomes a sample: copied into the data
 * directory, decoded first so a broken file is refused here rather than in the sample view, and
 * its length measured. `label` undefined = the platform's file-name rule.
 */
export async function importSampleFile(store: SampleStore, path: string, o: { category: Category; label?: string | null; queue: boolean }): Promise<Sample> {
  const full = resolve(path);
  const name = basename(full);
  const ext = extname(name).toLowerCase();
  if (!(SINGLE_FILE_EXTENSIONS as readonly string[]).includes(ext)) {
    throw new CoreError('InvalidArguments', `"${name}": single files must be ${SINGLE_FILE_EXTENSIONS.join(', ')} or .csv (a folder or info.labels imports an export).`);
  }
  let bytes: Buffer;
  try {
    bytes = await readFile(full);
  } catch (err) {
    throw new CoreError('NotFound', `Cannot read ${full} (${(err as NodeJS.ErrnoException).code ?? 'error'}).`);
  }
  const kind = fileKind(name) === 'audio' ? 'audio' : 'sensor';
  let lengthMs: number;
  try {
    const d = decodeSampleBytes({ name, kind }, bytes);
    lengthMs = d.rows * d.intervalMs;
  } catch (err) {
    throw new CoreError('InvalidArguments', `"${name}" is not a readable ${kind === 'audio' ? 'WAV recording' : 'sensor file in the acquisition format'}: ${(err as Error).message}`);
  }
  return store.addBytes({ name, kind, label: o.label === undefined ? deriveLabel(name) : o.label, category: o.category, queue: o.queue, lengthMs }, bytes);
}
