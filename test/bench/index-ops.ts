// Bundled by index.mjs (benchmark section "index"): the sample-index work the app does, through the
// app's own SampleStore, ReferenceIndex and QueueStore, on whichever SQLite connection it is given.
// The connection is the app's libsql one (openDb) or, for the before-figures, a better-sqlite3
// connection opened on the same file with the same pragmas: the core's code ran on better-sqlite3
// until libsql replaced it, and its statements need nothing better-sqlite3 lacks.
import { createLogger } from '../../src-main/core/log.js';
import { openDb, type Db } from '../../src-main/core/samples/db.js';
import { ReferenceIndex, type NewReference, type ReferenceDefaults } from '../../src-main/core/samples/reference-index.js';
import { SampleStore } from '../../src-main/core/samples/sample-store.js';
import { QueueStore, type QueuedBatch } from '../../src-main/core/upload/queue-store.js';

export { openDb };

/** What the index operations need from a connection: the subset both bindings offer alike. */
export type Connection = Pick<Db, 'prepare' | 'transaction' | 'pragma' | 'exec' | 'close'>;

export interface Timings {
  /** name → milliseconds */
  [op: string]: number;
}

const DEFAULTS: ReferenceDefaults = { category: 'training', metadata: {}, boundingBoxes: [], addDateId: false, allowDuplicates: false, queue: true };
const LABELS = ['idle', 'wave', 'updown', 'snake'];
/** As bulk-import.ts: files per transaction and per duplicate lookup. */
const CHUNK = 256;

function refs(n: number, from = 0): NewReference[] {
  return Array.from({ length: n }, (_, k) => {
    const i = from + k;
    const label = LABELS[i % LABELS.length]!;
    return { path: `/bench/files/${label}.${i}.cbor`, name: `${label}.${i}.cbor`, kind: 'sensor', label, bytes: 1650 + (i % 100), sha256: i.toString(16).padStart(64, '0') };
  });
}

function time(fn: () => void): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}

/**
 * Runs every operation once on a fresh index at `dataDir` whose schema openDb() already made;
 * `connection` is open on it. `files` references are added, claimed and marked uploaded.
 */
export function runIndexOps(dataDir: string, connection: Connection, files: number): Timings {
  // The store's constructor is private to the app (it opens libsql itself); the benchmark hands it
  // the connection under test instead. Orphan recovery is not part of what is measured.
  const Store = SampleStore as unknown as new (dir: string, db: Connection, log: ReturnType<typeof createLogger>, o: object) => SampleStore;
  const store = new Store(dataDir, connection, createLogger(() => {}), {});
  const index = new ReferenceIndex(store.db);
  const queue = new QueueStore(store);
  const all = refs(files);
  const t: Timings = {};

  t.add = time(() => {
    for (let i = 0; i < all.length; i += CHUNK) {
      const chunk = all.slice(i, i + CHUNK);
      if (index.find(chunk.map((r) => r.path)).size !== 0) throw new Error('fresh files found as known');
      store.db.transaction(() => index.insert(chunk, DEFAULTS))();
    }
  });

  t.findKnown = time(() => {
    let found = 0;
    for (let i = 0; i < all.length; i += CHUNK) found += index.find(all.slice(i, i + CHUNK).map((r) => r.path)).size;
    if (found !== files) throw new Error(`found ${found} of ${files} known files`);
  });

  const ids = (store.db.prepare('SELECT id FROM samples').pluck().all() as string[]);
  let gets = 0;
  t.get = time(() => {
    for (let i = 0; i < ids.length; i++) gets += store.get(ids[(i * 7919) % ids.length]!).bytes > 0 ? 1 : 0;
  });
  if (gets !== ids.length) throw new Error('get() lost rows');

  const pages = Math.ceil(files / 100);
  t.listPages = time(() => {
    for (let p = 0; p < pages; p++) {
      if (store.list({ states: ['queued'], limit: 100, offset: p * 100 }).length === 0) throw new Error('empty page');
      store.counts();
    }
  });

  t.counts = time(() => {
    for (let i = 0; i < 100; i++) store.counts();
  });

  // The user selects every sample: out of the queue and back in, and the quality hold applied.
  t.requeue = time(() => {
    if (queue.dequeue(ids) !== files || queue.enqueue(ids) !== files) throw new Error('dequeue/enqueue missed samples');
  });
  t.holdBack = time(() => store.holdBack(ids, false));

  let claimed = 0;
  let batches = 0;
  t.claim = 0;
  t.mark = 0;
  for (;;) {
    let batch: QueuedBatch | null = null;
    t.claim += time(() => (batch = queue.takeBatch(Date.now(), 1000, 512 * 1024 * 1024)));
    const taken = batch as QueuedBatch | null;
    if (!taken) break;
    batches++;
    claimed += taken.files.length;
    // As upload-queue.ts: one transaction for a request's answer.
    t.mark += time(() => store.db.transaction(() => queue.markUploadedMany(taken.files.map((f, i) => ({ id: f.id, platformSampleId: i, note: null }))))());
  }
  if (claimed !== files || store.counts().uploaded !== files) throw new Error(`claimed ${claimed}, uploaded ${store.counts().uploaded} of ${files}`);
  t.batches = batches;

  // One file at a time, each its own commit (a capture, a watched folder's new file): fsync-bound.
  const single = refs(200, files);
  t.addSingle = time(() => {
    for (const r of single) store.addReference({ name: r.name, kind: 'sensor', label: r.label, category: 'training', queue: true }, { path: r.path, bytes: r.bytes, sha256: r.sha256 });
  });
  return t;
}
