import { statfs } from 'node:fs/promises';
import { CoreError } from '../errors.js';

/**
 * Whether an error from SQLite or the file system means the data folder cannot take a write
 * right now (full, over quota, read-only), as opposed to a bug or a bad query. These are the
 * failures that go away when a person frees space or fixes the disk, so callers keep the data
 * and wait rather than give up on it.
 */
export type StorageProblem = 'full' | 'unwritable';

export function storageProblem(err: unknown): StorageProblem | null {
  const code = String((err as { code?: unknown } | null)?.code ?? '');
  const message = err instanceof Error ? err.message : '';
  if (/^(SQLITE_FULL|ENOSPC|EDQUOT)/.test(code) || /database or disk is full/i.test(message)) return 'full';
  if (/^(SQLITE_READONLY|SQLITE_IOERR|SQLITE_CANTOPEN|EROFS|EACCES|EPERM|EIO)/.test(code)) return 'unwritable';
  return null;
}

/** The code to show in a message: SQLite's or the system's, else the message itself. */
export function errorCode(err: unknown): string {
  return String((err as { code?: unknown } | null)?.code ?? '') || (err instanceof Error ? err.message : String(err));
}

/** Free space below this makes an unexplained I/O error read as a full disk. */
const NEARLY_FULL_BYTES = 1024 * 1024;

/**
 * As storageProblem, for a folder: SQLite reports some writes the full disk refused as a plain
 * I/O error (growing its -shm file gives SQLITE_IOERR_SHMSIZE), so an I/O error on a disk with
 * almost no room left is called what it is.
 */
export async function storageProblemAt(dir: string, err: unknown): Promise<StorageProblem | null> {
  const problem = storageProblem(err);
  if (problem !== 'unwritable' || !errorCode(err).startsWith('SQLITE_IOERR')) return problem;
  const st = await statfs(dir).catch(() => null);
  return st !== null && st.bavail * st.bsize < NEARLY_FULL_BYTES ? 'full' : problem;
}

const STORAGE_CODES: Record<string, string> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EROFS: 'the disk is read-only',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EIO: 'the disk reported an input/output error',
  ENOTDIR: 'a file, not a folder, is in its path',
};

/**
 * A file-system error as the person can act on it: what happened, where, and what to do. Others
 * pass through. `instead`: the other way out where the folder is not the data folder (an export's).
 */
export function storageError(err: unknown, where: string, instead = 'choose another data folder'): Error {
  const code = (err as NodeJS.ErrnoException)?.code;
  const what = code ? STORAGE_CODES[code] : undefined;
  if (!what) return err instanceof Error ? err : new Error(String(err));
  const todo = code === 'ENOSPC' || code === 'EDQUOT' ? 'Free some space on that disk' : `Make the folder writable, or ${instead}`;
  return new CoreError(code === 'EACCES' || code === 'EPERM' ? 'PermissionDenied' : 'Unavailable', `Could not write to ${where}: ${what} (${code}). ${todo}.`, { errno: code, path: where });
}

/**
 * Why a folder could not be made or read because a file holds its name or a name in its path
 * (EEXIST, ENOTDIR), as words; null for any other error.
 */
export function notAFolder(err: unknown): string | null {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code === 'EEXIST') return 'a file, not a folder, has that name';
  if (code === 'ENOTDIR') return 'a file, not a folder, is in its path';
  return null;
}
