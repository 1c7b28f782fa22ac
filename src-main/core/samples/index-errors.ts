import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { CoreError } from '../errors.js';
import { errorCode, notAFolder, storageError, storageProblemAt } from '../fs/storage-error.js';
import { SAMPLES_DIR } from './sample-files.js';

/**
 * The data folder's samples/ folder, made if missing. A file of that name is never moved or
 * removed here (it may be someone's): the person is told where it is and what to do.
 */
export async function makeSamplesFolder(dataDir: string): Promise<void> {
  const dir = join(dataDir, SAMPLES_DIR);
  try {
    await mkdir(dir, { recursive: true });
  } catch (err) {
    const why = notAFolder(err);
    if (why === null) throw storageError(err, dir);
    throw new CoreError('Unavailable', `Cannot use the data folder ${dataDir}: its sample files go in ${dir}, and ${why}. Move that file out of the data folder (or rename it), then start again; or choose another data folder.`, { path: dir });
  }
}

/**
 * Why the sample index cannot be opened, when it is the disk (full, read-only) and a person can
 * mend it; null for any other failure, which the caller throws as it is.
 */
export async function indexOpenError(dataDir: string, err: unknown): Promise<CoreError | null> {
  const problem = await storageProblemAt(dataDir, err);
  if (problem === null) return null;
  return new CoreError('Unavailable',
    `Cannot open the sample index ${join(dataDir, 'samples.db')}: ${problem === 'full' ? 'the disk is full' : 'it cannot be written'} (${errorCode(err)}). Nothing was changed. ` +
      `${problem === 'full' ? 'Free some space on that disk' : 'Make the data folder writable'}, then start again.`,
    { path: dataDir });
}

/**
 * Indexes a file (or `files` files) already saved at `rel` in the data folder. If the index cannot
 * take it (disk full, read-only), the file stays where it is (the next start indexes it again) and
 * the error says so.
 */
export function indexSaved<T>(dataDir: string, rel: string, insert: () => T, files = 1): T {
  try {
    return insert();
  } catch (err) {
    const code = String((err as { code?: unknown }).code ?? '');
    const full = /FULL|ENOSPC/.test(code) || /disk is full|database or disk is full/i.test((err as Error).message);
    const readonly = /READONLY|IOERR/.test(code);
    if (!full && !readonly) throw err;
    throw new CoreError('Unavailable',
      (files === 1 ? `The sample was saved as ${join(dataDir, rel)}, but the index (${join(dataDir, 'samples.db')}) could not record it: ` : `${files} samples were saved in ${join(dataDir, rel)}, but the index (${join(dataDir, 'samples.db')}) could not record them: `) +
        `${full ? 'the disk is full' : 'the index cannot be written'} (${code || (err as Error).message}). ` +
        `${full ? 'Free some space on that disk' : 'Make the data folder writable'}, then restart Capture Desk: ${files === 1 ? 'the file is indexed again at start (check its label and category then)' : 'the files are indexed again at start, from the records saved beside them'}.`,
      { keptIn: join(dataDir, rel) });
  }
}
