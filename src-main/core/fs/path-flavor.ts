import path from 'node:path';

/**
 * How one OS spells and compares file-system paths. Code that reasons about paths (is this folder
 * inside that one, which part of a path is hidden) takes a flavor instead of using node:path
 * directly, so its tests can feed it Windows and macOS paths on the Linux machines we test on.
 */
export interface PathFlavor {
  readonly api: typeof path.posix | typeof path.win32;
  /**
   * Whether two spellings that differ only in letter case name one file: always on Windows, and
   * on macOS's default (APFS, case-insensitive) volumes. Treating a case-sensitive Mac volume as
   * insensitive only ever refuses two folders whose names differ by case alone, never mixes them.
   */
  readonly ignoreCase: boolean;
}

export const WINDOWS_PATHS: PathFlavor = { api: path.win32, ignoreCase: true };
export const MAC_PATHS: PathFlavor = { api: path.posix, ignoreCase: true };
export const LINUX_PATHS: PathFlavor = { api: path.posix, ignoreCase: false };

export function pathFlavor(platform: NodeJS.Platform = process.platform): PathFlavor {
  if (platform === 'win32') return WINDOWS_PATHS;
  if (platform === 'darwin') return MAC_PATHS;
  return LINUX_PATHS;
}

/** The separators that end a path component: both slashes on Windows, only '/' elsewhere. */
export function splitPath(p: string, f: PathFlavor): string[] {
  return p.split(f.api === path.win32 ? /[\\/]+/ : /\/+/).filter((s) => s !== '');
}

/**
 * One spelling per path for comparisons: resolved (no '..', no trailing separator, '\' on
 * Windows), NFC (macOS hands out decomposed names), and lower case where the OS ignores case.
 */
export function comparable(p: string, f: PathFlavor): string {
  const r = f.api.resolve(p).normalize('NFC');
  return f.ignoreCase ? r.toLowerCase() : r;
}

export function samePath(a: string, b: string, f: PathFlavor): boolean {
  return comparable(a, f) === comparable(b, f);
}

/** True when `child` lies strictly below `parent` (on another drive or share it never does). */
export function isInside(parent: string, child: string, f: PathFlavor): boolean {
  const rel = f.api.relative(comparable(parent, f), comparable(child, f));
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${f.api.sep}`) && !f.api.isAbsolute(rel);
}

/**
 * The spelling kept for a folder the user chose: resolved, and on Windows with an upper-case
 * drive letter, since `c:\data` and `C:\Data\` typed on two days are one folder there.
 */
export function canonicalFolder(p: string, f: PathFlavor): string {
  const r = f.api.resolve(p);
  return f.api === path.win32 ? r.replace(/^[a-z]:/, (d) => d.toUpperCase()) : r;
}
