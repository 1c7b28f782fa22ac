import { open } from 'node:fs/promises';
import { hasLength, LENGTH_HEAD_BYTES, LENGTH_WHOLE_LIMIT, lengthFromBytes } from './sample-length.js';

/**
 * The length a file's header (or, for JSON and CSV, its content) tells, read with one read of its
 * first bytes: the files of watched folders and big files of a bulk import come this way.
 */
export async function lengthOfFile(path: string, name: string, size: number): Promise<number | null> {
  if (!hasLength(name)) return null;
  const whole = /\.(json|csv)$/i.test(name);
  if (whole && size > LENGTH_WHOLE_LIMIT) return null;
  const want = whole ? size : Math.min(size, LENGTH_HEAD_BYTES);
  let fh;
  try {
    fh = await open(path, 'r');
    const buf = Buffer.allocUnsafe(want);
    const { bytesRead } = await fh.read(buf, 0, want, 0);
    return lengthFromBytes(name, buf.subarray(0, bytesRead), Math.max(size, bytesRead));
  } catch {
    return null; // unreadable now: whoever reads it next says why
  } finally {
    await fh?.close();
  }
}
