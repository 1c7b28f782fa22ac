import type { Sample } from '../contract.js';
import type { Statement } from 'better-sqlite3';
import type { SampleStore } from '../samples/sample-store.js';
import { rowToSample, type SampleRow } from '../samples/sample-row.js';

export interface UploadOptions {
  addDateId: boolean;
  allowDuplicates: boolean;
}

export interface QueuedSample {
  sample: Sample;
  options: UploadOptions;
}

/**
 * The queue's state transitions, each one committed before the next step acts on it. The
 * "uploading" mark is what makes a restart safe: whatever still carries it was interrupted and is
 * sent again, which the platform's duplicate check turns into a no-op if it had arrived.
 */
export class QueueStore {
  constructor(private readonly samples: SampleStore) {}

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

  /** After a crash: anything that was in flight goes back to the queue. */
  requeueInterrupted(): number {
    return this.#db.prepare("UPDATE samples SET state = 'queued', next_attempt_at = 0 WHERE state = 'uploading'").run().changes;
  }

  enqueue(ids: string[]): number {
    const stmt = this.#db.prepare(
      "UPDATE samples SET state = 'queued', attempts = 0, next_attempt_at = 0, error = NULL WHERE id = ? AND state IN ('local', 'failed', 'rejected', 'queued')",
    );
    return this.#db.transaction(() => ids.reduce((n, id) => n + stmt.run(id).changes, 0))();
  }

  /** Back to local: the user took it out of the queue. */
  dequeue(ids: string[]): number {
    const stmt = this.#db.prepare("UPDATE samples SET state = 'local' WHERE id = ? AND state = 'queued'");
    return this.#db.transaction(() => ids.reduce((n, id) => n + stmt.run(id).changes, 0))();
  }

  /**
   * Takes the oldest due sample and every due sample that shares its headers (same category,
   * label, metadata, boxes, flags), up to the limits, and marks them uploading in one transaction.
   * File names are unique within a batch so each per-file answer maps to exactly one sample.
   */
  takeBatch(now: number, maxFiles: number, maxBytes: number): QueuedSample[] {
    return this.#db.transaction(() => {
      // One ordered scan of the oldest due samples; the batch is the oldest one's header group.
      const due = this.#stmt("SELECT * FROM samples WHERE state = 'queued' AND next_attempt_at <= ? ORDER BY created, rowid LIMIT ?").all(now, maxFiles * 2) as SampleRow[];
      const first = due[0];
      if (!first) return [];
      const sameHeaders = (r: SampleRow) =>
        r.category === first.category && r.label === first.label && r.metadata === first.metadata && r.bounding_boxes === first.bounding_boxes &&
        r.add_date_id === first.add_date_id && r.allow_duplicates === first.allow_duplicates;
      const batch: SampleRow[] = [];
      const names = new Set<string>();
      let bytes = 0;
      for (const r of due) {
        if (batch.length >= maxFiles) break;
        if (!sameHeaders(r) || names.has(r.name)) continue;
        if (batch.length > 0 && bytes + r.bytes > maxBytes) break;
        batch.push(r);
        names.add(r.name);
        bytes += r.bytes;
      }
      const mark = this.#stmt("UPDATE samples SET state = 'uploading' WHERE id = ?");
      for (const r of batch) mark.run(r.id);
      return batch.map((r) => ({ sample: { ...rowToSample(r), state: 'uploading' as const }, options: { addDateId: r.add_date_id === 1, allowDuplicates: r.allow_duplicates === 1 } }));
    })();
  }

  markUploaded(id: string, platformSampleId: number | null, note: string | null): void {
    this.#stmt("UPDATE samples SET state = 'uploaded', platform_sample_id = ?, note = ?, error = NULL, uploaded_at = ? WHERE id = ?")
      .run(platformSampleId, note, new Date().toISOString(), id);
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
    this.#db.prepare("UPDATE samples SET state = 'queued', error = ?, next_attempt_at = 0 WHERE id = ?").run(error, id);
  }

  nextDueAt(): number | null {
    const r = this.#db.prepare("SELECT MIN(next_attempt_at) AS t FROM samples WHERE state = 'queued'").get() as { t: number | null };
    return r.t;
  }
}
