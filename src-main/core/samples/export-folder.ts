import { isAbsolute, join } from 'node:path';
import { CoreError } from '../errors.js';

/**
 * The folder an export asked for in the app goes to: none given, a new one under exports/ in the
 * data folder. A relative path is refused, saying the full path it may have meant: the core's
 * working folder is wherever the app or `capture-desk serve` happened to be started (a browser on
 * another computer cannot even see it), so "myexport" landed there and the notice said only
 * "to myexport". The CLI's --out is relative to the person's shell, and does not come here.
 */
export function exportFolder(dataDir: string, outDir: string | undefined, now = new Date()): string {
  if (outDir === undefined) return join(dataDir, 'exports', now.toISOString().replace(/[:.]/g, '-'));
  if (isAbsolute(outDir)) return outDir;
  throw new CoreError(
    'InvalidArguments',
    `Cannot export into "${outDir}": type the folder's full path, such as ${join(dataDir, 'exports', outDir)} (a path like "${outDir}" would be taken from wherever the app was started). Or leave it empty for a new folder under exports/ in the data folder; nothing was written.`,
    { path: outDir },
  );
}
