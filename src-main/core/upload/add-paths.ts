import { stat } from 'node:fs/promises';
import { basename, extname, isAbsolute } from 'node:path';
import type { AddPathResult, Category } from '../contract.js';
import { fileKind } from '../samples/formats/label-from-filename.js';
import type { SampleStore } from '../samples/sample-store.js';
import { importFile } from './import-files.js';

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
 */
export async function addPaths(store: SampleStore, paths: readonly string[], o: AddPathsOptions): Promise<AddPathResult[]> {
  const results: AddPathResult[] = [];
  const seen = new Set<string>();
  for (const path of paths) {
    if (seen.has(path)) continue; // the same file twice in one drop is added once
    seen.add(path);
    results.push(await addOne(store, path, o));
  }
  return results;
}

async function addOne(store: SampleStore, path: string, o: AddPathsOptions): Promise<AddPathResult> {
  const refuse = (reason: string): AddPathResult => ({ path, status: 'refused', reason });
  if (!isAbsolute(path)) return refuse('not a full path to a file; drop or pick the file itself');
  let st;
  try {
    st = await stat(path);
  } catch (err) {
    return refuse(readError(err));
  }
  if (st.isDirectory()) return refuse('it is a folder; add the files in it, or watch the folder under Watched folders');
  if (!st.isFile()) return refuse('it is not a regular file (a device, pipe or socket)');
  const kind = fileKind(basename(path));
  if (kind === null) return refuse(`the platform does not accept ${extname(path) || 'files without an extension'}; use ${ACCEPTED}`);
  if (kind === 'labels') return refuse('a labels file (info.labels) is not a sample; upload it with `capture-desk upload` beside its files');
  try {
    // Kept byte for byte, like samples.addFile: the two ways of adding a dropped file give the same sample.
    const outcome = await importFile(store, path, { ...o, boundingBoxes: [], addDateId: false, allowDuplicates: false });
    return outcome.status === 'refused' ? refuse(outcome.reason) : outcome;
  } catch (err) {
    return refuse(readError(err));
  }
}

function readError(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'ENOENT') return 'it does not exist any more (moved or deleted?)';
  if (e.code === 'EACCES' || e.code === 'EPERM') return 'Capture Desk may not read it; check its permissions';
  if (e.code === 'EISDIR') return 'it is a folder';
  return e.message;
}
