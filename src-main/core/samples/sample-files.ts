import { createHash } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, isAbsolute, join, posix } from 'node:path';
import type { Sample } from '../contract/contract.js';
import { CoreError } from '../errors.js';

/** The folder, inside the data folder, of the files samples own. */
export const SAMPLES_DIR = 'samples';

/** The index stores a sample's place relative to the data folder with '/', the same on every OS (join() reads it on Windows too). */
export const storedName = (file: string): string => posix.join(SAMPLES_DIR, file);

/** The name of a sample's own file: its id, with the extension of the name it was given. */
export const ownFileName = (id: string, name: string): string => `${id}${extname(name).toLowerCase() || '.bin'}`;

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Size and hash of a file written by streaming (a recording), read back a chunk at a time. */
export async function measureFile(path: string): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { bytes, sha256: hash.digest('hex') };
}

/** Where a sample's file is: the index keeps it relative to the data folder (older entries: absolute). */
export const sampleFilePath = (dataDir: string, s: Pick<Sample, 'file'>): string => (isAbsolute(s.file) ? s.file : join(dataDir, s.file));

/** A sample's file, checked against the hash the index pinned when it was added. */
export async function readPinnedFile(dataDir: string, s: Pick<Sample, 'name' | 'file' | 'sha256'>): Promise<Buffer> {
  const path = sampleFilePath(dataDir, s);
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    throw gone(s, path, err);
  }
  return pinned(s, path, bytes);
}

/** readPinnedFile in one call, for a worker thread that reads its samples itself (a model worker in bulk work). */
export function readPinnedFileSync(path: string, s: Pick<Sample, 'name' | 'sha256'>): Buffer {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw gone(s, path, err);
  }
  return pinned(s, path, bytes);
}

const gone = (s: Pick<Sample, 'name'>, path: string, err: unknown): CoreError =>
  new CoreError('NotFound', `The file of sample "${s.name}" is gone (${path}): ${(err as Error).message}. Restore it or delete the sample.`);

function pinned(s: Pick<Sample, 'name' | 'sha256'>, path: string, bytes: Buffer): Buffer {
  if (sha256(bytes) !== s.sha256) {
    throw new CoreError('InvalidArguments', `The file of sample "${s.name}" changed after it was added (${path}). Add it again to upload the new content.`);
  }
  return bytes;
}
