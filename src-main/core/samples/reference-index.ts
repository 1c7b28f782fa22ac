import type { BoundingBox, Category, SampleKind, SampleState, StructuredLabel } from '../contract/contract.js';
import type { BindValue, Db, Statement } from './db.js';
import { newSampleId } from './sample-id.js';
import type { SampleRow } from './sample-row.js';

/** One file indexed where it lies (bulk upload): no copy, its hash pins the content we promised to send. */
export interface NewReference {
  path: string;
  name: string;
  kind: SampleKind;
  label: string | null;
  bytes: number;
  sha256: string;
  /** Set by a labels file in the file's folder; otherwise the import's defaults apply. */
  category?: Category;
  metadata?: Record<string, string>;
  boundingBoxes?: BoundingBox[];
  structuredLabels?: StructuredLabel[] | null;
  /** From the file's header (see formats/sample-length.ts), or the quality check's reading; null = unknown. */
  lengthMs?: number | null;
  /** The data-quality verdict, when the store checks new samples (the app's); held = kept local, not queued. */
  quality?: { report: string; flagged: number; held: boolean } | null;
  note?: string | null;
}

/** What every file of one bulk import shares unless its own reference says otherwise. */
export interface ReferenceDefaults {
  category: Category;
  metadata: Record<string, string>;
  boundingBoxes: BoundingBox[];
  addDateId: boolean;
  allowDuplicates: boolean;
  queue: boolean;
}

/** A sample already made from a file, as a bulk import needs to know it. */
export interface KnownReference {
  id: string;
  state: SampleState;
}

// One statement per chunk of files instead of one per file: a multi-row INSERT with every value
// bound (30 a row), so a chunk costs one call into SQLite rather than a few hundred. (Rows sent as
// one JSON array cost a quarter more: SQLite parsed each row's JSON again for every column.)
const COLUMNS = ['id', 'name', 'file', 'owned', 'source_path', 'source_sha256', 'kind', 'label', 'category', 'metadata', 'bounding_boxes',
  'structured_labels', 'created', 'bytes', 'sha256', 'length_ms', 'incomplete', 'add_date_id', 'allow_duplicates', 'state', 'attempts',
  'next_attempt_at', 'error', 'note', 'platform_sample_id', 'uploaded_at', 'extra', 'quality', 'flagged', 'held_back'] as const satisfies ReadonlyArray<keyof SampleRow>;
/** Rows per statement: 256 × 30 values, well under SQLite's 32,766 bound values. */
const ROWS_PER_INSERT = 256;
const insertOf = (rows: number) =>
  `INSERT INTO samples (${COLUMNS.join(', ')}) VALUES ${Array.from({ length: rows }, () => `(${COLUMNS.map(() => '?').join(', ')})`).join(', ')}`;
// Newest first, so the first row seen for a (path, hash) is the one findBySource would return.
const FIND = `SELECT id, source_path AS path, source_sha256 AS sha256, state FROM samples
  WHERE source_path IN (SELECT value FROM json_each(?)) ORDER BY created DESC, rowid DESC`;

/** Bulk reads and writes of file references, for imports of thousands of files. */
export class ReferenceIndex {
  readonly #db: Db;
  /** By number of rows: a bulk import uses the full one, and one more for its last chunk. */
  readonly #inserts = new Map<number, Statement>();
  readonly #find: Statement;

  constructor(db: Db) {
    this.#db = db;
    this.#find = db.prepare(FIND);
  }

  /** One lookup for a whole chunk: path + NUL + hash → the newest sample made from that content. */
  find(paths: string[]): Map<string, KnownReference> {
    const found = new Map<string, KnownReference>();
    if (paths.length === 0) return found;
    for (const r of this.#find.all(JSON.stringify(paths)) as Array<{ id: string; path: string; sha256: string; state: SampleState }>) {
      const key = referenceKey(r.path, r.sha256);
      if (!found.has(key)) found.set(key, { id: r.id, state: r.state });
    }
    return found;
  }

  /**
   * Inserts the rows in one statement (the caller's transaction makes it one commit); returns their
   * ids. A row the quality verdict holds back is kept local even when the import queues.
   */
  insert(refs: NewReference[], d: ReferenceDefaults): string[] {
    return this.insertRows(refs, d).map((r) => r.id);
  }

  /** As insert, returning the rows exactly as written (rowToSample makes them samples without reading them back). */
  insertRows(refs: NewReference[], d: ReferenceDefaults): SampleRow[] {
    if (refs.length === 0) return [];
    // One timestamp per chunk: queue order within it is the insertion (rowid) order.
    const created = new Date().toISOString();
    const metadata = JSON.stringify(d.metadata);
    const rows = refs.map((r): SampleRow => ({
      id: newSampleId(), name: r.name, file: r.path, owned: 0, source_path: r.path, source_sha256: r.sha256, kind: r.kind, label: r.label,
      category: r.category ?? d.category, metadata: r.metadata ? JSON.stringify(r.metadata) : metadata,
      // Boxes annotate images only: the platform never stores them on other files, nor does the index.
      bounding_boxes: JSON.stringify(r.kind === 'image' ? (r.boundingBoxes ?? d.boundingBoxes) : []),
      structured_labels: r.structuredLabels?.length ? JSON.stringify(r.structuredLabels) : null,
      created, bytes: r.bytes, sha256: r.sha256, length_ms: r.lengthMs ?? null, incomplete: 0, add_date_id: d.addDateId ? 1 : 0,
      allow_duplicates: d.allowDuplicates ? 1 : 0, state: d.queue && !r.quality?.held ? 'queued' : 'local', attempts: 0, next_attempt_at: 0,
      error: null, note: r.note ?? null, platform_sample_id: null, uploaded_at: null, extra: '{}',
      quality: r.quality?.report ?? null, flagged: r.quality?.flagged ?? 0, held_back: r.quality?.held ? 1 : 0,
    }));
    this.writeRows(rows);
    return rows;
  }

  /** Inserts rows made elsewhere (SampleStore.addCopies), in as few statements; the caller's transaction makes them one commit. */
  writeRows(rows: readonly SampleRow[]): void {
    for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
      const part = rows.slice(i, i + ROWS_PER_INSERT);
      let st = this.#inserts.get(part.length);
      if (!st) this.#inserts.set(part.length, (st = this.#db.prepare(insertOf(part.length))));
      const values: BindValue[] = new Array(part.length * COLUMNS.length);
      let k = 0;
      for (const row of part) for (const c of COLUMNS) values[k++] = row[c];
      st.run(...values);
    }
  }
}

export function referenceKey(path: string, sha256: string): string {
  return `${path}\u0000${sha256}`;
}
