import type { BoundingBox, Category, SampleKind, SampleState, StructuredLabel } from '../contract.js';
import type { Db, Statement } from './db.js';
import { newSampleId } from './sample-id.js';

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

// One statement per chunk of files instead of one per file: the rows travel as one JSON array,
// so a chunk costs one call into SQLite rather than a few hundred with 27 bound values each.
const INSERT = `INSERT INTO samples (id, name, file, owned, source_path, source_sha256, kind, label, category, metadata, bounding_boxes,
    structured_labels, created, bytes, sha256, length_ms, incomplete, add_date_id, allow_duplicates, state, attempts, next_attempt_at,
    error, note, platform_sample_id, uploaded_at, extra, quality, flagged, held_back)
  SELECT r.value ->> 0, r.value ->> 1, r.value ->> 2, 0, r.value ->> 2, r.value ->> 5, r.value ->> 3, r.value ->> 4,
    COALESCE(r.value ->> 7, @category), COALESCE(r.value ->> 8, @metadata), r.value ->> 9, r.value ->> 10, @created, r.value ->> 6, r.value ->> 5,
    r.value ->> 11, 0, @add_date_id, @allow_duplicates, CASE WHEN r.value ->> 14 THEN 'local' ELSE @state END, 0, 0,
    NULL, r.value ->> 15, NULL, NULL, '{}', r.value ->> 12, COALESCE(r.value ->> 13, 0), COALESCE(r.value ->> 14, 0)
  FROM json_each(@rows) AS r`;
// Newest first, so the first row seen for a (path, hash) is the one findBySource would return.
const FIND = `SELECT id, source_path AS path, source_sha256 AS sha256, state FROM samples
  WHERE source_path IN (SELECT value FROM json_each(?)) ORDER BY created DESC, rowid DESC`;

/** Bulk reads and writes of file references, for imports of thousands of files. */
export class ReferenceIndex {
  readonly #insert: Statement;
  readonly #find: Statement;

  constructor(db: Db) {
    this.#insert = db.prepare(INSERT);
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
    if (refs.length === 0) return [];
    const ids = refs.map(() => newSampleId());
    this.#insert.run({
      rows: JSON.stringify(refs.map((r, i) => [
        ids[i], r.name, r.path, r.kind, r.label, r.sha256, r.bytes, r.category ?? null, r.metadata ? JSON.stringify(r.metadata) : null,
        // Boxes annotate images only: the platform never stores them on other files, nor does the index.
        JSON.stringify(r.kind === 'image' ? (r.boundingBoxes ?? d.boundingBoxes) : []),
        r.structuredLabels?.length ? JSON.stringify(r.structuredLabels) : null,
        r.lengthMs ?? null, r.quality?.report ?? null, r.quality?.flagged ?? 0, r.quality?.held ? 1 : 0, r.note ?? null,
      ])),
      category: d.category,
      metadata: JSON.stringify(d.metadata),
      // One timestamp per chunk: queue order within it is the insertion (rowid) order.
      created: new Date().toISOString(),
      add_date_id: d.addDateId ? 1 : 0,
      allow_duplicates: d.allowDuplicates ? 1 : 0,
      state: d.queue ? 'queued' : 'local',
    });
    return ids;
  }
}

export function referenceKey(path: string, sha256: string): string {
  return `${path}\u0000${sha256}`;
}
