import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Sample, SampleKind, SampleState } from '../contract/contract.js';
import { deriveLabel, fileKind } from '../samples/formats/label-from-filename.js';
import { lengthFromBytes } from '../samples/formats/sample-length.js';
import { FLAGGED_LEVEL, rowToSample } from '../samples/sample-row.js';
import { ReferenceIndex, referenceKey, type NewReference } from '../samples/reference-index.js';
import type { NewSample } from '../samples/new-sample.js';
import type { SampleStore } from '../samples/sample-store.js';
import type { NewCopy } from '../samples/staged-copies.js';
import { readFiles } from './bulk-reader.js';
import { ReadWorker, type HashedRead } from './read-worker.js';
import type { FileAnnotation } from './folder-labels.js';
import { importFile, withAnnotation, type ImportOptions } from './import-files.js';
import { retakeKnown } from './retake.js';
import type { BulkOutcome, IndexedOutcome } from './bulk-outcome.js';

// The outcome types live apart so retake.ts can use them without importing this module back.
export type { BulkOutcome, IndexedOutcome } from './bulk-outcome.js';
import { MAX_FILE_BYTES } from '../upload/ingestion-client.js';

/** Files in one transaction and one read request: big enough to amortize a commit, small enough to start sending early. */
const CHUNK = 256;
/** Chunks being read while one is indexed: the reader never waits for the indexer, memory stays bounded. */
const READ_AHEAD = 2;
/** Reads in flight on the fallback reader: the disk and the thread pool stay busy without a pile of pending callbacks. */
const LANES = 16;
/**
 * Chunks of copies being written, synced or waiting to be indexed while the next is checked: the
 * CPU, the writer thread and the disk's syncs each have work; the bytes they hold are bounded too.
 */
const IN_FLIGHT = 3;
const IN_FLIGHT_BYTES = 64 * 1024 * 1024;
/** Files at most this big are read whole once (hash + send); bigger ones are streamed. */
const READ_WHOLE_BYTES = 8 * 1024 * 1024;

/**
 * The reading side of a bulk import: files are read and hashed a chunk at a time, a few chunks
 * ahead of the indexer, on a worker thread. Made before the index is open (its worker starts while
 * the folders are listed) and started with the list, so the first chunk is on its way while
 * SQLite opens: on a cold disk, reading is what a big upload waits on.
 */
export class BulkReads {
  readonly #reader: HashedReader;
  readonly #signs: (path: string) => boolean;
  #chunks: string[][] = [];
  #reads: Array<Promise<HashedRead[]> | null> = [];

  /** `worker` false: reads on this thread (one chunk or less, e.g. a drop of a few files: a thread costs more to start than it saves). */
  constructor(run: Pick<ImportOptions, 'hmacKey'>, worker = true) {
    this.#reader = worker ? hashedReader() : mainThreadReader();
    // Signing rewrites the content, so those files take the one-at-a-time path.
    this.#signs = (path) => run.hmacKey !== undefined && /\.(json|cbor)$/i.test(path);
  }

  /** Splits `paths` into chunks and starts reading the first ones. Call once. */
  start(paths: string[]): void {
    for (let i = 0; i < paths.length; i += CHUNK) this.#chunks.push(paths.slice(i, i + CHUNK));
    this.#reads = this.#chunks.map(() => null);
    this.#ahead(0);
  }

  get chunks(): readonly string[][] {
    return this.#chunks;
  }

  /** Chunk `c`'s reads (big files and files to sign are left out), and the next chunks' started. */
  async take(c: number): Promise<Map<string, HashedRead>> {
    this.#ahead(c);
    const read = new Map((await this.#reads[c]!).map((r) => [r.path, r]));
    this.#reads[c] = null;
    return read;
  }

  close(): Promise<void> {
    return this.#reader.close();
  }

  #ahead(c: number): void {
    for (let k = c; k < Math.min(this.#chunks.length, c + 1 + READ_AHEAD); k++) {
      const p = (this.#reads[k] ??= this.#reader.read(this.#chunks[k]!.filter((path) => !this.#signs(path))));
      p.catch(() => {}); // awaited in its turn; not an unhandled rejection before then
    }
  }
}

/**
 * Adds many files, a chunk at a time: the next chunk is read while this one is hashed and indexed
 * (one duplicate lookup and one insert per chunk, in one transaction). Their bytes are kept for
 * the upload so each file is read once. Calls `onChunk` after each chunk so the queue can start
 * sending while the rest is still indexed. Re-running after a crash finds each file (path and
 * content hash) and reuses its sample, so nothing is queued twice. `reads` may have been started
 * earlier (see BulkReads); it is closed here either way.
 */
export async function importFiles(
  store: SampleStore,
  paths: string[],
  run: ImportOptions,
  onChunk: (outcomes: BulkOutcome[]) => void,
  annotations: ReadonlyMap<string, FileAnnotation> = new Map(),
  reads?: BulkReads,
): Promise<BulkOutcome[]> {
  const optionsFor = (path: string) => withAnnotation(run, annotations.get(path));
  const o = run;
  const index = new ReferenceIndex(store.db);
  if (!reads) {
    reads = new BulkReads(run, paths.length > CHUNK);
    reads.start(paths);
  }
  const all: BulkOutcome[] = [];
  /** Chunks of copies not yet indexed, oldest first (at most IN_FLIGHT), the paths and bytes each holds. */
  const inFlight: Array<{ paths: ReadonlySet<string>; bytes: number; done: Promise<void> }> = [];
  const held = () => inFlight.reduce((n, f) => n + f.bytes, 0);
  try {
    const chunks = reads.chunks;
    for (let c = 0; c < chunks.length; c++) {
      while (inFlight.length >= IN_FLIGHT || (inFlight.length > 0 && held() >= IN_FLIGHT_BYTES)) await settled(inFlight);
      const chunk = chunks[c]!;
      const read = await reads.take(c);
      // A path given again while its first copy is not indexed yet: found as it would be one chunk at a time.
      if (inFlight.some((f) => chunk.some((p) => f.paths.has(p)))) while (inFlight.length > 0) await settled(inFlight);
      const outcomes: BulkOutcome[] = new Array(chunk.length);
      const hashes: Array<string | null> = chunk.map((p) => {
        const r = read.get(p);
        return r?.bytes ? r.sha256 : null;
      });
      const known = index.find(chunk.filter((_, k) => hashes[k] !== null));
      const fresh: Array<{ at: number; ref: NewReference; bytes: Buffer }> = [];
      const careful: number[] = [];
      const copies: Array<{ at: number; copy: NewCopy }> = [];
      for (let k = 0; k < chunk.length; k++) {
        const path = chunk[k]!;
        const r = read.get(path);
        const hash = hashes[k] ?? null;
        if (!r || hash === null) {
          if (r && !r.bytes && !r.tooBig && !converts(optionsFor(path), path)) outcomes[k] = { path, status: 'refused', reason: r.error };
          else careful.push(k); // big, to be signed, or converted (which says why it cannot be read in its own words)
          continue;
        }
        const key = referenceKey(path, hash);
        const found = known.get(key);
        if (found) {
          outcomes[k] = { path, status: 'known', id: found.id, state: found.state };
          continue;
        }
        const fo = optionsFor(path);
        if (converts(fo, path)) {
          // Kept as another file (a CSV as CBOR): no source, so never found as imported before.
          const made = convertedCopy(path, r.bytes!, fo);
          if ('reason' in made) outcomes[k] = { path, status: 'refused', reason: made.reason };
          else copies.push({ at: k, copy: made });
          continue;
        }
        const verdict = fo.check?.(path, r.bytes!) ?? null;
        if (typeof verdict === 'string') {
          outcomes[k] = { path, status: 'refused', reason: verdict };
          continue;
        }
        const ref = referenceFor(path, r.bytes!, hash, fo, verdict?.lengthMs);
        if (fo.copy) copies.push({ at: k, copy: copyOf(ref, r.bytes!, fo) });
        else fresh.push({ at: k, ref, bytes: r.bytes! });
      }
      // The app's store checks every new sample (the CLI's checks none): from the bytes at hand, not
      // from the file again. A verdict that holds the sample back keeps it local.
      for (const f of fresh) {
        const verdict = await store.inspect({ bytes: f.bytes }, { ...f.ref, category: f.ref.category ?? o.category, queue: o.queue });
        if (verdict) {
          f.ref.quality = { report: JSON.stringify(verdict.report), flagged: verdict.flagged ? FLAGGED_LEVEL[verdict.flagged] : 0, held: verdict.held };
          f.ref.lengthMs ??= verdict.lengthMs ?? null;
        }
      }
      const rows = fresh.length === 0 ? [] : store.db.transaction(() => index.insertRows(fresh.map((f) => f.ref), o))();
      fresh.forEach((f, j) => {
        const row = rows[j]!;
        store.keepBytes(row.id, f.bytes);
        outcomes[f.at] = { path: f.ref.path, status: 'added', id: row.id, state: row.state, ...(o.withSamples ? { sample: rowToSample(row) } : {}) };
      });
      // Copies are written and synced together and indexed in one transaction (SampleStore.stageCopies):
      // this chunk's files are written while the next chunk is read and checked, and indexed after
      // the chunk before them, so chunks enter the index in order and one that fails stops the rest.
      // Counted first: the copies' bytes are handed to the writer thread (SyncedWrite.data).
      const copyBytes = copies.reduce((n, x) => n + x.copy.bytes.byteLength, 0);
      const staged = copies.length > 0 ? await store.stageCopies(copies.map((x) => x.copy)) : null;
      const before = inFlight.at(-1)?.done;
      const done = (async () => {
        try {
          await before;
        } catch (err) {
          await staged?.discard();
          throw err;
        }
        const kept = staged ? await staged.commit() : [];
        copies.forEach((x, j) => {
          const sample = kept[j]!;
          outcomes[x.at] = { path: chunk[x.at]!, status: 'added', id: sample.id, state: sample.state, sample };
        });
        for (const k of careful) outcomes[k] = await importOne(store, chunk[k]!, optionsFor(chunk[k]!));
        if (run.retake) await retakeKnown(store, outcomes, optionsFor, (path, fo) => importOne(store, path, fo));
        all.push(...outcomes);
        onChunk(outcomes);
      })();
      done.catch(() => {}); // awaited in its turn
      inFlight.push({ paths: new Set(chunk), bytes: copyBytes, done });
      // Files indexed where they lie go one chunk after the other, as they always did.
      if (!run.copy) await settled(inFlight);
    }
    while (inFlight.length > 0) await settled(inFlight);
  } finally {
    // After a failure, the chunks behind it are still removing their temp files: done when this returns.
    await Promise.allSettled(inFlight.map((f) => f.done));
    await reads.close();
  }
  return all;
}

/** Waits for the oldest chunk in flight and takes it off the list; if it failed, it stays there and this throws. */
async function settled(inFlight: Array<{ done: Promise<void> }>): Promise<void> {
  await inFlight[0]!.done;
  inFlight.shift();
}

/** The one-at-a-time path (big files, files to sign); a file gone or unreadable since it was listed is refused, as on the fast path. */
async function importOne(store: SampleStore, path: string, o: ImportOptions): Promise<BulkOutcome> {
  try {
    if (converts(o, path)) {
      let bytes: Buffer;
      try {
        bytes = await readFile(path);
      } catch (err) {
        return { path, status: 'refused', reason: (err as Error).message }; // as importCsv says it
      }
      const made = convertedCopy(path, bytes, o);
      return 'reason' in made ? { path, status: 'refused', reason: made.reason } : added(path, (await store.addCopies([made]))[0]!);
    }
    if (o.copy) {
      // A copy is made of the whole file anyway: read it once, then as on the fast path.
      const st = await stat(path);
      if (st.size > MAX_FILE_BYTES) return { path, status: 'refused', reason: `${(st.size / 1048576).toFixed(1)} MB is over the platform's 100 MB per file; split it first` };
      const bytes = await readFile(path);
      const hash = createHash('sha256').update(bytes).digest('hex');
      const found = store.findBySource(path, hash);
      if (found) return { path, status: 'known', id: found.id, state: found.state };
      const verdict = o.check?.(path, bytes) ?? null;
      if (typeof verdict === 'string') return { path, status: 'refused', reason: verdict };
      return added(path, (await store.addCopies([copyOf(referenceFor(path, bytes, hash, o, verdict?.lengthMs), bytes, o)]))[0]!);
    }
    const one = await importFile(store, path, o);
    return one.status === 'refused' ? one : { path: one.path, status: one.status, id: one.sample.id, state: one.sample.state, sample: one.sample };
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.syscall === undefined) throw err; // not the file system's answer: a real fault
    return { path, status: 'refused', reason: `cannot read it (${e.code ?? e.message})` };
  }
}

/**
 * Reads and hashes on a worker thread; where one cannot be started, on the main thread with
 * asynchronous reads (slower, same results).
 */
function hashedReader(): HashedReader {
  try {
    return new ReadWorker(READ_WHOLE_BYTES);
  } catch {
    return mainThreadReader();
  }
}

interface HashedReader {
  read(paths: string[]): Promise<HashedRead[]>;
  close(): Promise<void>;
}

function mainThreadReader(): HashedReader {
  return {
    read: async (paths) => (await readFiles(paths, LANES, READ_WHOLE_BYTES)).map((r) => (r.bytes ? { ...r, sha256: createHash('sha256').update(r.bytes).digest('hex') } : r)),
    close: async () => {},
  };
}

/** `lengthMs` given: the length a check read already; undefined: read from the bytes here. */
function referenceFor(path: string, bytes: Buffer, sha256: string, o: ImportOptions, lengthMs?: number | null): NewReference {
  // The spec lists .jpg only; the same bytes under .jpeg would be refused.
  const name = basename(path).replace(/\.jpeg$/i, '.jpg');
  return {
    path, name, kind: fileKind(name) as SampleKind, label: o.label === undefined ? deriveLabel(name) : o.label, bytes: bytes.length, sha256,
    category: o.category, metadata: o.metadata, boundingBoxes: o.boundingBoxes, structuredLabels: o.structuredLabels ?? null,
    // Read from the bytes already in memory: the header, or the acquisition payload's row count.
    lengthMs: lengthMs !== undefined ? lengthMs : lengthFromBytes(name, bytes),
  };
}

/**
 * A file kept as a copy in the data folder (`samples import` of single files): the bytes just read
 * and hashed are written once, and the copy remembers where it came from, so importing the same
 * file again finds it.
 */
function copyOf(ref: NewReference, bytes: Buffer, o: ImportOptions): NewCopy {
  return { input: { ...copyInput(ref.name, o), label: ref.label, lengthMs: ref.lengthMs ?? null }, bytes, source: { path: ref.path, sha256: ref.sha256 }, sha256: ref.sha256 };
}

function converts(o: ImportOptions, path: string): boolean {
  return o.copy === true && o.convert !== undefined && o.convert.applies(path);
}

/** The copy ImportOptions.convert makes of a file, or why it cannot (its words). */
function convertedCopy(path: string, bytes: Buffer, o: ImportOptions): NewCopy | { reason: string } {
  try {
    const made = o.convert!.make(path, bytes);
    return { input: { ...copyInput(made.name, o), ...made.sample }, bytes: made.bytes, source: null };
  } catch (err) {
    return { reason: (err as Error).message };
  }
}

/** What every copy of a run shares; kind and label from the name unless the caller says otherwise. */
function copyInput(name: string, o: ImportOptions): NewSample {
  return {
    name, kind: fileKind(name) as SampleKind, label: o.label === undefined ? deriveLabel(name) : o.label, category: o.category, metadata: o.metadata,
    boundingBoxes: o.boundingBoxes, structuredLabels: o.structuredLabels ?? null, addDateId: o.addDateId, allowDuplicates: o.allowDuplicates, queue: o.queue,
  };
}

function added(path: string, sample: Sample): BulkOutcome {
  return { path, status: 'added', id: sample.id, state: sample.state, sample };
}
