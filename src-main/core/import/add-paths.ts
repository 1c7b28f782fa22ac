import { stat } from 'node:fs/promises';
import { basename, extname, isAbsolute } from 'node:path';
import type { AddPathResult, Category } from '../contract/contract.js';
import { fileKind } from '../samples/formats/label-from-filename.js';
import type { SampleStore } from '../samples/sample-store.js';
import { importFiles } from './bulk-import.js';

export interface AddPathsOptions {
  category: Category;
  /** undefined = the platform's file-name rule, null = unlabeled. */
  label: string | null | undefined;
  metadata: Record<string, string>;
  queue: boolean;
}

const ACCEPTED = '.json, .cbor, .csv, .parquet, .wav, .jpg, .png, .mp4 or .avi';

/**
 * Adds files chosen in the desktop app by their paths (a drop or the file picker): each is hashed
 * and indexed where it lies, like `capture-desk upload` and watched folders, so nothing passes
 * through the renderer's memory and the platform's 100 MB per file is the only size cap. Every
 * path gets its own outcome with a reason a person can act on; none stops the others.
 *
 * The files go through the bulk import (core/import/bulk-import.ts), as `upload` and `samples
 * import` do: read and hashed (on a worker thread when there are more than 256), checked from those
 * bytes, indexed 256 to a transaction with their length from the header. A drop of ten thousand
 * files takes seconds; the window sends a drop 256 paths a call (src-renderer imports.svelte.ts).
 */
export async function addPaths(store: SampleStore, paths: readonly string[], o: AddPathsOptions): Promise<AddPathResult[]> {
  const unique = [...new Set(paths)]; // the same file twice in one drop is added once
  const refused = await mapLimit(unique, STAT_LANES, refusalOf);
  const accepted = unique.filter((_, i) => refused[i] === null);
  // Kept byte for byte, like samples.addFile: the two ways of adding a dropped file give the same sample.
  const outcomes = await importFiles(store, accepted, { ...o, boundingBoxes: [], addDateId: false, allowDuplicates: false, withSamples: true }, () => {});
  const byPath = new Map(outcomes.map((r) => [r.path, r]));
  const samples = store.getMany(outcomes.flatMap((r) => (r.status === 'refused' || r.sample ? [] : [r.id])));
  return unique.map((path, i): AddPathResult => {
    const reason = refused[i];
    if (reason) return { path, status: 'refused', reason };
    const r = byPath.get(path);
    if (!r) return { path, status: 'refused', reason: 'it could not be read' };
    if (r.status === 'refused') return { path, status: 'refused', reason: r.reason };
    const sample = r.sample ?? samples.get(r.id);
    // Deleted by someone else between its indexing and this answer: said, not invented.
    return sample ? { path, status: r.status, sample } : { path, status: 'refused', reason: 'it was deleted while being added' };
  });
}

/** Stats in flight at once: a drop of thousands of files is checked in a few hundred ms. */
const STAT_LANES = 32;

/** Why a path cannot be added, before any of it is read (a FIFO would block the reader); null = fine. */
async function refusalOf(path: string): Promise<string | null> {
  if (!isAbsolute(path)) return 'not a full path to a file; drop or pick the file itself';
  let st;
  try {
    st = await stat(path);
  } catch (err) {
    return readError(err);
  }
  if (st.isDirectory()) return 'it is a folder; add the files in it, or watch the folder under Watched folders';
  if (!st.isFile()) return 'it is not a regular file (a device, pipe or socket)';
  const kind = fileKind(basename(path));
  if (kind === null) return `the platform does not accept ${extname(path) || 'files without an extension'}; use ${ACCEPTED}`;
  if (kind === 'labels') return 'a labels file (info.labels) is not a sample; upload it with `capture-desk upload` beside its files';
  return null;
}

async function mapLimit<T, R>(items: readonly T[], lanes: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(lanes, items.length) }, lane));
  return out;
}

function readError(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'ENOENT') return 'it does not exist any more (moved or deleted?)';
  if (e.code === 'EACCES' || e.code === 'EPERM') return 'Capture Desk may not read it; check its permissions';
  if (e.code === 'EISDIR') return 'it is a folder';
  return e.message;
}
