import type { Stats } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pathFlavor, splitPath, type PathFlavor } from '../fs/path-flavor.js';
import { fileKind } from '../samples/formats/label-from-filename.js';

/**
 * Which files in a watched folder can become samples. One rule for both the live watcher and the
 * scan at start, so a file is never offered that the watcher would have skipped, or the reverse.
 */

/** Names editors, browsers and copy tools give files they are still writing. */
const TEMP_SUFFIXES = ['.tmp', '.temp', '.part', '.partial', '.crdownload', '.download', '.swp'];

/**
 * Folders the OS keeps at the root of a drive. A lab laptop often watches a whole SD card or USB
 * stick (E:\), whose recycle bin holds deleted captures under names like `$R3KQ2.cbor`.
 * Compared in lower case: Windows writes `$RECYCLE.BIN` and `$Recycle.Bin` alike.
 */
const SYSTEM_FOLDERS = new Set(['$recycle.bin', 'system volume information', 'lost+found']);

/**
 * Hidden (`.git`, `.DS_Store`, macOS's `._idle.cbor` resource forks), a lock/backup file
 * (`~$report.csv`, `~data.csv`) or a system folder: never user data to upload.
 */
function isHiddenName(name: string): boolean {
  return name.startsWith('.') || name.startsWith('~') || SYSTEM_FOLDERS.has(name.toLowerCase());
}

/** Safari downloads into a folder `idle.cbor.download/` holding `idle.cbor`, then moves the file out. */
function isDownloadFolder(name: string): boolean {
  return name.toLowerCase().endsWith('.download');
}

/** A file name the platform accepts as a sample (labels files describe samples; they are not samples). */
export function isSampleFileName(name: string): boolean {
  if (isHiddenName(name)) return false;
  const lower = name.toLowerCase();
  if (TEMP_SUFFIXES.some((s) => lower.endsWith(s))) return false;
  const kind = fileKind(name);
  return kind !== null && kind !== 'labels';
}

/**
 * chokidar's `ignored` test for a folder watched at `root`. Without stats a path may still be a
 * directory, so only the hidden-name rule applies then; with stats, files must also pass the name rule.
 */
export function isIgnoredUnder(root: string, path: string, stats?: Stats, flavor: PathFlavor = pathFlavor()): boolean {
  const rel = flavor.api.relative(root, path);
  if (rel === '') return false; // the root itself, whatever its own name
  const parts = splitPath(rel, flavor);
  if (parts.some(isHiddenName)) return true;
  if (parts.slice(0, -1).some(isDownloadFolder)) return true;
  if (stats?.isFile()) return !isSampleFileName(parts[parts.length - 1]!);
  return false;
}

/**
 * Every sample file under root, depth first, sorted. Symlinked directories are not entered (they
 * can loop, and chokidar is told not to follow them either); symlinked files count.
 */
export async function scanFolder(root: string): Promise<string[]> {
  const found: string[] = [];
  const visit = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      // A subfolder that vanished or cannot be read is skipped; the root itself must be readable.
      if (dir === root) throw err;
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (isHiddenName(e.name)) continue;
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (!isDownloadFolder(e.name)) await visit(p);
      }
      else if (isSampleFileName(e.name) && (e.isFile() || (e.isSymbolicLink() && (await isFile(p))))) found.push(p);
    }
  };
  await visit(root);
  return found;
}

async function isFile(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isFile();
  } catch {
    return false; // a dangling link is not a sample
  }
}
