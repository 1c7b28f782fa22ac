import type { SampleState } from '../core/contract/contract.js';
import type { SampleStore } from '../core/samples/sample-store.js';
import type { BulkOutcome } from '../core/import/bulk-import.js';

/** Where one of this run's files ended, counted as the summary counts it (upload-summary.ts). */
type End = 'uploaded' | 'present' | 'not';

/**
 * How far this run's files are, for the progress line. Counted from the queue's change notices:
 * the samples a batch touched are looked up when the line is next drawn. Never a count of every
 * sample in the data folder, which also holds earlier runs' samples (a second upload into the
 * default folder would otherwise start at "20000/500 done").
 */
export class UploadTally {
  readonly #store: SampleStore;
  readonly #mine = new Set<string>();
  readonly #pending = new Set<string>();
  /** Changed before the import reported them (a batch can settle while a big file is still indexed). */
  readonly #early = new Set<string>();
  /** Samples of this run that reached an end: stored for this run, on the platform already, or given up on. */
  readonly #ended = new Map<string, End>();
  readonly #counts: Record<End, number> = { uploaded: 0, present: 0, not: 0 };
  /** What the platform stored for this run; any other sample on the platform was there already, as the summary says. */
  readonly #stored: ReadonlySet<string>;

  constructor(store: SampleStore, stored: ReadonlySet<string>) {
    this.#store = store;
    this.#stored = stored;
  }

  /** This run's files as the import found or added them (some were uploaded by an earlier run). */
  add(outcomes: readonly BulkOutcome[]): void {
    for (const o of outcomes) {
      if (o.status === 'refused') continue;
      this.#mine.add(o.id);
      this.#note(o.id, o.state);
      if (this.#early.delete(o.id)) this.#pending.add(o.id);
    }
  }

  /** The queue changed these samples; their states are read at the next count. */
  changed(ids: readonly string[]): void {
    // Ids not of this run are kept aside: the queue also sends what the app queued in this folder.
    for (const id of ids) (this.#mine.has(id) ? this.#pending : this.#early).add(id);
  }

  /** The summary's words: uploaded (for this run), already present, and not uploaded (rejected or failed). */
  counts(): { uploaded: number; present: number; notUploaded: number } {
    if (this.#pending.size > 0) {
      const look: string[] = [];
      // Stored for this run: uploaded, as the summary counts it whatever the index says, so not
      // looked up. Only the rest is read (a 10,000-file upload read every sample twice, ~0.2 s).
      for (const id of this.#pending) {
        if (this.#stored.has(id)) this.#note(id, 'uploaded');
        else look.push(id);
      }
      this.#pending.clear();
      const now = this.#store.verdicts(look);
      for (const id of look) this.#note(id, now.get(id)?.state ?? null);
    }
    const c = this.#counts;
    return { uploaded: c.uploaded, present: c.present, notUploaded: c.not };
  }

  #note(id: string, state: SampleState | null): void {
    const before = this.#ended.get(id);
    const after: End | undefined = state === 'uploaded' ? (this.#stored.has(id) ? 'uploaded' : 'present')
      : state === 'rejected' || state === 'failed' ? 'not' : undefined;
    if (before === after) return;
    if (before !== undefined) this.#counts[before]--;
    if (after === undefined) this.#ended.delete(id);
    else {
      this.#ended.set(id, after);
      this.#counts[after]++;
    }
  }
}
