import { open, rm } from 'node:fs/promises';
import { CoreError } from './errors.js';
import { makeDirs } from './fs/make-dirs.js';
import { homedir } from 'node:os';
import path from 'node:path';

export const PRODUCT_NAME = 'Capture Desk';

/**
 * The same folder Electron's app.getPath('userData') gives for productName "Capture Desk", so the
 * desktop app, `capture-desk serve` and the CLI share one store on a lab laptop by default:
 * %APPDATA%\Capture Desk on Windows, ~/Library/Application Support/Capture Desk on macOS,
 * $XDG_CONFIG_HOME/Capture Desk (else ~/.config/Capture Desk) elsewhere.
 * `pathApi` follows `platform` unless given, so every OS's answer can be checked on any OS.
 */
export function defaultDataDir(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
  home: string = homedir(),
  pathApi: typeof path.posix | typeof path.win32 = platform === 'win32' ? path.win32 : path.posix,
): string {
  const { join, isAbsolute } = pathApi;
  // An empty or relative variable is treated as unset, as the XDG spec asks; an empty APPDATA
  // would otherwise put the store in whatever folder the CLI was started from.
  const absolute = (v: string | undefined) => (v && isAbsolute(v) ? v : undefined);
  if (platform === 'win32') return join(absolute(env.APPDATA) ?? join(home, 'AppData', 'Roaming'), PRODUCT_NAME);
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', PRODUCT_NAME);
  return join(absolute(env.XDG_CONFIG_HOME) ?? join(home, '.config'), PRODUCT_NAME);
}

/**
 * Creates the data folder if needed and proves it can be written (a file is created, synced and
 * removed), so a folder that cannot hold a capture is reported at start, naming the folder and
 * what to do, rather than when the first recording ends.
 */
export async function ensureDataDir(dir: string): Promise<string> {
  const probe = path.join(dir, `.write-test-${process.pid}`);
  try {
    await makeDirs(dir, 0o700);
    const fh = await open(probe, 'w', 0o600);
    try {
      await fh.write('ok');
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rm(probe, { force: true });
  } catch (err) {
    await rm(probe, { force: true }).catch(() => undefined);
    throw dataDirError(dir, err);
  }
  return dir;
}

function dataDirError(dir: string, err: unknown): CoreError {
  const code = (err as NodeJS.ErrnoException).code ?? '';
  const why: Record<string, string> = {
    EEXIST: 'a file, not a folder, has that name',
    ENOTDIR: 'a file, not a folder, is in its path',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    EROFS: 'it is on a read-only disk',
    ENOSPC: 'the disk is full',
    EDQUOT: 'the disk quota is used up',
    // mkdir in a system folder such as /proc, where no folder can be made.
    ENOENT: 'the system allows no folder to be made there',
  };
  const todo = code === 'ENOSPC' || code === 'EDQUOT'
    ? 'Free some space on that disk, or choose another folder with --data-dir DIR.'
    : code === 'EEXIST' || code === 'ENOTDIR'
      ? 'Move that file away, or choose another folder with --data-dir DIR.'
      : code === 'ENOENT'
        ? 'Choose a folder in your home or on a data disk with --data-dir DIR.'
      : 'Make it writable for this user (or remount the disk read-write), or choose another folder with --data-dir DIR.';
  return new CoreError(code === 'EACCES' || code === 'EPERM' ? 'PermissionDenied' : 'Unavailable',
    `Cannot use the data folder ${dir}: ${why[code] ?? (err as Error).message} (${code || 'error'}). ${todo}`, { path: dir, errno: code || null });
}
