import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import type { SampleKind, SampleState } from '../contract.js';
import { deriveLabel, fileKind } from '../samples/formats/label-from-filename.js';
import { ReferenceIndex, referenceKey, type NewReference } from '../samples/reference-index.js';
import type { SampleStore } from '../samples/sample-store.js';
import { readFiles } from './bulk-reader.js';
import { importFile, type ImportOptions } from './import-files.js';

/** Per file of a bulk import: its sample (new or found) and the state it had, or why it was refused. */
export type BulkOutcome =
  | { path: string; status: 'added' | 'known'; id: string; state: SampleState }
  | { path: string; status: 'refused'; reason: string };

/** Files in one transaction, and the read-ahead: big enough to amortize a commit, small enough to start sending early. */
const CHUNK = 256;
/** Reads in flight: the disk and the thread pool stay busy without a pile of pending callbacks. */
const LANES = 16;
/** Files at most this big are read whole once (hash + send); bigger ones are streamed. */
const READ_WHOLE_BYTES = 8 * 1024 * 1024;

/**
 * Adds many files, a chunk at a time: the next chunk is read while this one is hashed and indexed
 * (one duplicate lookup and one insert per chunk, in one transaction). Their bytes are kept for
 * the upload so each file is read once. Calls `onChunk` after each chunk so the queue can start
 * sending while the rest is still indexed. Re-running after a crash finds each file (path and
 * content hash) and reuses its sample, so nothing is queued twice.
 */
export async function importFiles(store: SampleStore, paths: string[], o: ImportOptions, onChunk: (outcomes: BulkOutcome[]) => void): Promise<BulkOutcome[]> {
  const index = new ReferenceIndex(store.db);
  const all: BulkOutcome[] = [];
  // Signing rewrites the content, so those files take the one-at-a-time path.
  const signs = (path: string) => o.hmacKey !== undefined && /\.(json|cbor)$/i.test(path);
  const readChunk = (from: number) => readFiles(paths.slice(from, from + CHUNK).filter((p) => !signs(p)), LANES, READ_WHOLE_BYTES);
  let ahead = readChunk(0);
  for (let i = 0; i < paths.length; i += CHUNK) {
    const chunk = paths.slice(i, i + CHUNK);
    const read = new Map((await ahead).map((r) => [r.path, r]));
    if (i + CHUNK < paths.length) ahead = readChunk(i + CHUNK);

    const outcomes: BulkOutcome[] = new Array(chunk.length);
    const hashes: Array<string | null> = chunk.map((p) => {
      const r = read.get(p);
      return r?.bytes ? createHash('sha256').update(r.bytes).digest('hex') : null;
    });
    const known = index.find(chunk.filter((_, k) => hashes[k] !== null));
    const fresh: Array<{ at: number; ref: NewReference; bytes: Buffer }> = [];
    const careful: number[] = [];
    for (let k = 0; k < chunk.length; k++) {
      const path = chunk[k]!;
      const r = read.get(path);
      const hash = hashes[k] ?? null;
      if (!r || hash === null) {
        if (r && !r.bytes && !r.tooBig) outcomes[k] = { path, status: 'refused', reason: r.error };
        else careful.push(k); // big, or to be signed
        continue;
      }
      const key = referenceKey(path, hash);
      const found = known.get(key);
      if (found) {
        outcomes[k] = { path, status: 'known', id: found.id, state: found.state };
        continue;
      }
      fresh.push({ at: k, ref: referenceFor(path, r.bytes!.length, hash, o), bytes: r.bytes! });
    }
    const ids = store.db.transaction(() => index.insert(fresh.map((f) => f.ref), o))();
    const state: SampleState = o.queue ? 'queued' : 'local';
    fresh.forEach((f, j) => {
      store.keepBytes(ids[j]!, f.bytes);
      outcomes[f.at] = { path: f.ref.path, status: 'added', id: ids[j]!, state };
    });
    for (const k of careful) outcomes[k] = await importOne(store, chunk[k]!, o);
    all.push(...outcomes);
    onChunk(outcomes);
  }
  return all;
}

/** The one-at-a-time path (big files, files to sign); a file gone or unreadable since it was listed is refused, as on the fast path. */
async function importOne(store: SampleStore, path: string, o: ImportOptions): Promise<BulkOutcome> {
  try {
    const one = await importFile(store, path, o);
    return one.status === 'refused' ? one : { path: one.path, status: one.status, id: one.sample.id, state: one.sample.state };
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.syscall === undefined) throw err; // not the file system's answer: a real fault
    return { path, status: 'refused', reason: `cannot read it (${e.code ?? e.message})` };
  }
}

function referenceFor(path: string, bytes: number, sha256: string, o: ImportOptions): NewReference {
  // The spec lists .jpg only; the same bytes under .jpeg would be refused.
  const name = basename(path).replace(/\.jpeg$/i, '.jpg');
  return { path, name, kind: fileKind(name) as SampleKind, label: o.label === undefined ? deriveLabel(name) : o.label, bytes, sha256 };
}
