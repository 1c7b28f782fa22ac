/**
 * The last word on an error no command turned into a sentence: a system error (ENOENT, EISDIR…)
 * carries the path it met, so it is said as what happened there, not as libuv's
 * "EISDIR: illegal operation on a directory, open '…'". Anything else keeps its message.
 */
const WHAT: Record<string, string> = {
  ENOENT: 'there is nothing there',
  EISDIR: 'it is a folder, where a file was expected',
  ENOTDIR: 'a file, not a folder, is in its path',
  EEXIST: 'something of that name is already there',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the disk is read-only',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EIO: 'the disk reported an input/output error',
  EBUSY: 'another program is using it',
  ENAMETOOLONG: 'the name is too long for the system',
  ELOOP: 'its links point round in a loop',
  EMFILE: 'too many files are open',
};

export function errorText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const { code, path } = err as NodeJS.ErrnoException;
  const what = code ? WHAT[code] : undefined;
  if (!what || !path) return err.message;
  const todo = code === 'ENOSPC' || code === 'EDQUOT' ? 'Free some space on that disk and try again.' : 'Check that path, then try again.';
  return `Could not use ${path}: ${what} (${code}). ${todo}`;
}
