import { realpath, stat } from 'node:fs/promises';
import { CoreError } from '../errors.js';
import { isInside, pathFlavor, samePath, type PathFlavor } from '../fs/path-flavor.js';
import type { WatchedFolder } from '../contract/watch-schema.js';

/** Throws, in words the user can act on, unless `path` is a readable directory right now. */
export async function assertFolder(path: string): Promise<void> {
  let st;
  try {
    st = await stat(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new CoreError('NotFound', `The folder ${path} does not exist; check the path, or create the folder first.`);
    if (code === 'EACCES' || code === 'EPERM') throw new CoreError('PermissionDenied', `Capture Desk may not read ${path}; allow access to it, or choose another folder.`);
    throw new CoreError('Unavailable', `Cannot open ${path} (${code ?? (err as Error).message}); check the disk or share it is on.`);
  }
  if (!st.isDirectory()) throw new CoreError('InvalidArguments', `${path} is a file, not a folder; choose the folder the files are saved into.`);
}

/**
 * Refuses a folder whose files would arrive twice (it is, is inside, or holds a watched folder)
 * or that holds the data directory, where every capture would be re-imported as a new sample.
 * Paths are compared after resolving symlinks, so two names for one folder are caught too.
 */
export async function assertNoOverlap(path: string, dataDir: string, watched: readonly WatchedFolder[], flavor: PathFlavor = pathFlavor()): Promise<void> {
  const real = await realpath(path);
  const others = await Promise.all(watched.map(async (f) => ({ folder: f, real: await realOr(f.path) })));
  checkOverlap(path, real, dataDir, await realOr(dataDir), others, flavor);
}

/**
 * The comparison itself, apart from the file system so it can be tested with Windows and macOS
 * paths: `C:\Data` and `c:\data\` are one folder there, and a folder that is gone right now
 * (compared as written) must still match however its name is cased.
 */
export function checkOverlap(
  path: string,
  real: string,
  dataDir: string,
  data: string,
  watched: ReadonlyArray<{ folder: WatchedFolder; real: string }>,
  flavor: PathFlavor,
): void {
  const contains = (parent: string, child: string) => isInside(parent, child, flavor);
  if (samePath(real, data, flavor) || contains(real, data) || contains(data, real)) {
    throw new CoreError('InvalidArguments', `${path} overlaps Capture Desk's data folder (${dataDir}); watching it would re-import every capture. Choose a folder outside it.`);
  }
  for (const { folder: f, real: other } of watched) {
    if (samePath(other, real, flavor)) throw new CoreError('InvalidArguments', `${path} is already watched; change that folder's settings instead of adding it again.`);
    if (contains(other, real)) throw new CoreError('InvalidArguments', `${path} is inside the watched folder ${f.path}, whose subfolders are watched already; change or remove that folder instead.`);
    if (contains(real, other)) throw new CoreError('InvalidArguments', `${path} holds the watched folder ${f.path}; remove that folder first, then add ${path}.`);
  }
}

/** A folder that is gone right now still blocks its path (it may come back), compared as written. */
async function realOr(p: string): Promise<string> {
  try {
    return await realpath(p);
  } catch {
    return p;
  }
}
