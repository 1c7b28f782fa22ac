import type { BoundingBox, Category, PendingUploads, SampleKind, StructuredLabel } from '../contract/contract.js';
import { deriveLabel } from '../samples/formats/label-from-filename.js';
import type { Statement } from '../samples/db.js';
import type { SampleStore } from '../samples/sample-store.js';
import { processClaims, type ClaimOwners } from './claim-owner.js';

/** What every file of one request shares: they all travel under the same headers. */
export interface BatchHeaders {
  category: Category;
  /** The label every file has; ignored when labelFromName. */
  label: string | null;
  /**
   * Each file's label is the one the platform derives from its name: no x-label is sent and the
   * platform applies its own rule to each file, so what it stores is exactly the local label.
   */
  labelFromName: boolean;
  metadata: Record<string, string>;
  addDateId: boolean;
  allowDuplicates: boolean;
}

/** Just what sending one file needs; a batch of a thousand never builds a thousand full Samples. */
export interface QueuedFile {
  id: string;
  name: string;
  file: string;
  bytes: number;
  sha256: string;
  attempts: number;
  structuredLabels: StructuredLabel[] | null;
  kind: SampleKind;
  /** Per file: they travel in a bounding_boxes.labels part, which names each image. */
  boundingBoxes: BoundingBox[];
  /** A copy in the data folder (which has a sidecar to keep current), not a file referenced where it lies. */
  owned: boolean;
}

export interface QueuedBatch {
  headers: BatchHeaders;
  files: QueuedFile[];
}

/** One verdict of the platform, recorded with the others of its request in one statement. */
export interface UploadedMark {
  id: string;
  platformSampleId: number | null;
  note: string | null;
  /** False for a referenced file: it has no sidecar to rewrite. Unknown counts as owned. */
  owned?: boolean;
}

interface HeaderRow {
  name: string;
  category: Category;
  label: string | null;
  metadata: string;
  add_date_id: number;
  allow_duplicates: number;
}

/** A row of DUE_IN_GROUP: the fields a QueuedFile takes as they are, and those it decodes. */
interface FileRow extends Pick<QueuedFile, 'id' | 'name' | 'file' | 'bytes' | 'sha256' | 'attempts' | 'kind'> {
  structured_labels: string | null;
  label: string | null;
  bounding_boxes: string;
  owned: number;
}

interface PendingRow {
  id: string;
  name: string;
  label: string | null;
  category: Category;
  state: 'queued' | 'uploading';
  next_attempt_at: number;
  attempts: number;
  error: string | null;
}

// Queue order is (created, rowid); samples_queue_order = (state, created) holds exactly that order
// (rowid is the index's tail), so naming it spares SQLite the temp sort of every queued row that
// it picks with samples_by_state, which it otherwise does for each batch taken.
const QUEUE_ORDER = "FROM samples INDEXED BY samples_queue_order WHERE state = 'queued' AND next_attempt_at <= ?";
export const OLDEST_DUE = `SELECT name, category, label, metadata, add_date_id, allow_duplicates ${QUEUE_ORDER} ORDER BY created, rowid LIMIT 1`;
// The label is matched in code (the file-name rule is not SQL); boxes travel per file.
export const DUE_IN_GROUP = `SELECT id, name, file, bytes, sha256, attempts, structured_labels, label, kind, bounding_boxes, owned ${QUEUE_ORDER}
  AND category = ? AND metadata = ? AND add_date_id = ? AND allow_duplicates = ?
  ORDER BY created, rowid LIMIT ?`;

/**
 * The queue's state transitions, each one committed before the next step acts on it. The
 * "uploading" mark is what makes a restart safe: whatever still carries it was interrupted and is
 * sent again, which the platform's duplicate check turns into a no-op if it had arrived.
 */
export class QueueStore {
  constructor(private readonly samples: SampleStore, private readonly owners: ClaimOwners = processClaims()) {}

  readonly #statements = new Map<string, Statement>();

  get #db() {
    return this.samples.db;
  }

  /** The queue runs the same statements for every file; compile each once. */
  #stmt(sql: string): Statement {
    let st = this.#statements.get(sql);
    if (!st) this.#statements.set(sql, (st = this.samples.db.prepare(sql)));
    return st;
  }

  /**
   * Samples marked 'uploading' by a process that is gone (a crash, a kill) go back to the queue;
   * those of a live one (the app beside a CLI run, a second run) stay its own. A claim with no
   * owner was made before owners were written down, and goes back too. `mine`: this process's own
   * claims too (a queue opened anew in a process whose earlier queue left some, e.g. on a full disk);
   * never while this process may be sending them.
   */
  requeueInterrupted(mine = false): number {
    const owners = this.#stmt("SELECT DISTINCT claimed_by FROM samples WHERE state = 'uploading'").pluck().all() as Array<string | null>;
    const gone = owners.filter((o) => o === null || (mine && o === this.owners.me) || !this.owners.alive(o));
    if (gone.length === 0) return 0;
    return this.#stmt(
      `UPDATE samples SET state = 'queued', next_attempt_at = 0, claimed_by = NULL
       WHERE state = 'uploading' AND coalesce(claimed_by, '') IN (SELECT value FROM json_each(?))`,
    ).run(JSON.stringify(gone.map((o) => o ?? ''))).changes;
  }

  /** One statement for any number of ids (the UI may send ten thousand): one call into SQLite, not one per sample. */
  enqueue(ids: string[]): number {
    return this.#stmt(
      `UPDATE samples SET state = 'queued', attempts = 0, next_attempt_at = 0, error = NULL
       WHERE id IN (SELECT value FROM json_each(?)) AND state IN ('local', 'failed', 'rejected', 'queued')
         AND coalesce(json_extract(extra, '$.rate_missing'), 0) = 0`,
    ).run(JSON.stringify(ids)).changes;
  }

  /** Of these ids, the samples kept without their sampling rate: they cannot be sent until it is given. */
  waitingForRate(ids: string[]): Array<{ id: string; name: string }> {
    return this.#stmt("SELECT id, name FROM samples WHERE id IN (SELECT value FROM json_each(?)) AND coalesce(json_extract(extra, '$.rate_missing'), 0) = 1")
      .all(JSON.stringify(ids)) as Array<{ id: string; name: string }>;
  }

  /**
   * Takes the queued samples of these files out of the queue (back to local), for a run that names
   * them again with its own words: an earlier run's queued words must not be sent before this
   * run's replace them (retake.ts). The run queues them again once it has; returns their ids.
   */
  holdFiles(paths: string[]): string[] {
    return this.#stmt("UPDATE samples SET state = 'local' WHERE state = 'queued' AND source_path IN (SELECT value FROM json_each(?)) RETURNING id")
      .pluck().all(JSON.stringify(paths)) as string[];
  }

  /** Back to local: the user took them out of the queue. */
  dequeue(ids: string[]): number {
    return this.#stmt("UPDATE samples SET state = 'local' WHERE id IN (SELECT value FROM json_each(?)) AND state = 'queued'").run(JSON.stringify(ids)).changes;
  }

  /**
   * Takes the oldest due sample and the due samples that share its headers (same category,
   * metadata, flags, and label) in queue order, up to the limits, and marks them uploading in one
   * transaction. Samples whose label is the one the platform derives from their file name share a
   * request whatever that label is: no x-label is sent for them. File names are unique within a
   * batch so each per-file answer maps to exactly one sample. Null when nothing is due.
   */
  takeBatch(now: number, maxFiles: number, maxBytes: number): QueuedBatch | null {
    return this.#db.transaction((): QueuedBatch | null => {
      const first = this.#stmt(OLDEST_DUE).get(now) as HeaderRow | undefined;
      if (!first) return null;
      const fromName = first.label === deriveLabel(first.name);
      const belongs = fromName ? (r: FileRow) => r.label === deriveLabel(r.name) : (r: FileRow) => r.label === first.label;
      // Rows are read a little past the limit (a repeated name, or a label of another group, waits
      // for the next batch), and more only when those filled the read: reading twice the limit every
      // time cost a 10,000-file upload ~100 ms of row decoding.
      /** The batch from these rows, and whether it ended on a limit (rather than running out of rows). */
      const pick = (due: FileRow[]): { files: QueuedFile[]; full: boolean } => {
        const files: QueuedFile[] = [];
        const names = new Set<string>();
        let bytes = 0;
        for (const r of due) {
          if (files.length >= maxFiles) return { files, full: true };
          if (names.has(r.name) || !belongs(r)) continue;
          if (files.length > 0 && bytes + r.bytes > maxBytes) return { files, full: true };
          files.push({
            id: r.id, name: r.name, file: r.file, bytes: r.bytes, sha256: r.sha256, attempts: r.attempts,
            structuredLabels: r.structured_labels ? (JSON.parse(r.structured_labels) as StructuredLabel[]) : null,
            kind: r.kind, boundingBoxes: JSON.parse(r.bounding_boxes) as BoundingBox[], owned: r.owned === 1,
          });
          names.add(r.name);
          bytes += r.bytes;
        }
        return { files, full: files.length >= maxFiles };
      };
      let limit = maxFiles + 64;
      let files: QueuedFile[];
      for (;;) {
        const due = this.#stmt(DUE_IN_GROUP).all(now, first.category, first.metadata, first.add_date_id, first.allow_duplicates, limit) as FileRow[];
        const picked = pick(due);
        files = picked.files;
        // More rows wait behind ones this batch skipped: read further, up to a bound.
        if (picked.full || due.length < limit || limit >= maxFiles * 16) break;
        limit *= 4;
      }
      this.#stmt("UPDATE samples SET state = 'uploading', claimed_by = ? WHERE id IN (SELECT value FROM json_each(?))").run(this.owners.me, JSON.stringify(files.map((f) => f.id)));
      return {
        headers: {
          category: first.category, label: first.label, labelFromName: fromName, metadata: JSON.parse(first.metadata) as Record<string, string>,
          addDateId: first.add_date_id === 1, allowDuplicates: first.allow_duplicates === 1,
        },
        files,
      };
    })();
  }

  markUploaded(id: string, platformSampleId: number | null, note: string | null): void {
    this.markUploadedMany([{ id, platformSampleId, note }]);
  }

  /**
   * A request's confirmed files in one statement, or two when some carry a note: the platform's
   * note is set only where there is one. Naming `note` in an UPDATE fires the search index's
   * trigger (samples_text_update, db.ts) for every row it changes, whether the note changed or not,
   * which rewrote each uploaded sample's search entry and cost marking a request uploaded half its
   * work (callgrind, 10,240 files: 1.83 → 0.97 G instructions for the queue's writes).
   */
  markUploadedMany(marks: UploadedMark[]): void {
    if (marks.length === 0) return;
    const at = new Date().toISOString();
    const plain = marks.filter((m) => m.note === null);
    const noted = plain.length === marks.length ? [] : marks.filter((m) => m.note !== null);
    if (plain.length > 0) {
      this.#stmt(
        `UPDATE samples SET state = 'uploaded', platform_sample_id = u.value ->> 1, error = NULL, uploaded_at = ?
         FROM json_each(?) AS u WHERE samples.id = u.value ->> 0`,
      ).run(at, JSON.stringify(plain.map((m) => [m.id, m.platformSampleId])));
    }
    if (noted.length > 0) {
      this.#stmt(
        // The sample's own note (who asked for it, why it is unsigned) stays; the platform's is added to it.
        `UPDATE samples SET state = 'uploaded', platform_sample_id = u.value ->> 1,
           note = CASE WHEN samples.note IS NULL THEN u.value ->> 2 ELSE samples.note || '; ' || (u.value ->> 2) END,
           error = NULL, uploaded_at = ?
         FROM json_each(?) AS u WHERE samples.id = u.value ->> 0`,
      ).run(at, JSON.stringify(noted.map((m) => [m.id, m.platformSampleId, m.note])));
    }
    // Uploaded or not is what a rebuilt index must know; the sidecars follow after the commit.
    // Referenced files have none: looking them up would cost a bulk upload a query per request.
    this.samples.changed(marks.flatMap((m) => (m.owned === false ? [] : [m.id])));
  }

  markRejected(id: string, error: string): void {
    this.#stmt("UPDATE samples SET state = 'rejected', error = ? WHERE id = ?").run(error, id);
  }

  markFailed(id: string, error: string): void {
    this.#stmt("UPDATE samples SET state = 'failed', attempts = attempts + 1, error = ? WHERE id = ?").run(error, id);
  }

  /** Counts an attempt and waits until `nextAt` before trying again. */
  markRetry(id: string, error: string, nextAt: number): void {
    this.#stmt("UPDATE samples SET state = 'queued', attempts = attempts + 1, error = ?, next_attempt_at = ? WHERE id = ?").run(error, nextAt, id);
  }

  /** Back in line without counting an attempt (the queue was paused, e.g. the key was refused). */
  putBack(id: string, error: string | null): void {
    this.#stmt("UPDATE samples SET state = 'queued', error = ?, next_attempt_at = 0 WHERE id = ?").run(error, id);
  }

  /** Anything queued or in flight? One index probe, where counts() would scan every sample. */
  hasPending(): boolean {
    return this.#stmt("SELECT EXISTS (SELECT 1 FROM samples WHERE state IN ('queued', 'uploading')) AS pending").pluck().get() === 1;
  }

  /**
   * What is marked uploading, as a mark that changes whenever a sample gains or loses that state
   * (another process claiming or settling a batch), and their bytes; null when nothing is.
   */
  inFlightMark(): { mark: string; bytes: number } | null {
    const r = this.#stmt("SELECT count(*) AS n, total(rowid) AS ids, total(bytes) AS bytes FROM samples WHERE state = 'uploading'").get() as { n: number; ids: number; bytes: number };
    return r.n === 0 ? null : { mark: `${r.n}:${r.ids}`, bytes: r.bytes };
  }

  /**
   * The first `limit` samples waiting to be sent, those in flight first, then the queued in queue
   * order, each read through samples_queue_order (state, created) without sorting the queue; and
   * the count of all. The words are what a batch would send now (takeBatch reads the same columns).
   */
  pending(limit: number): PendingUploads {
    const read = (state: 'uploading' | 'queued', n: number) => (n <= 0 ? [] : this.#stmt(
      `SELECT id, name, label, category, state, next_attempt_at, attempts, error FROM samples INDEXED BY samples_queue_order
       WHERE state = ? ORDER BY created, rowid LIMIT ?`,
    ).all(state, n) as PendingRow[]);
    const rows = read('uploading', limit);
    rows.push(...read('queued', limit - rows.length));
    const total = this.#stmt("SELECT count(*) FROM samples WHERE state IN ('queued', 'uploading')").pluck().get() as number;
    return {
      items: rows.map((r) => ({
        id: r.id, name: r.name, label: r.label, labelFromName: r.label !== null && r.label === deriveLabel(r.name), category: r.category,
        state: r.state, nextAttemptAt: r.state === 'queued' && r.next_attempt_at > 0 ? r.next_attempt_at : null, attempts: r.attempts, error: r.error,
      })),
      total,
    };
  }

  nextDueAt(): number | null {
    const r = this.#stmt("SELECT MIN(next_attempt_at) AS t FROM samples WHERE state = 'queued'").get() as { t: number | null };
    return r.t;
  }
}
