import type { SampleState } from '../core/contract/contract.js';
import type { SampleStore } from '../core/samples/sample-store.js';
import type { BulkOutcome } from '../core/import/bulk-import.js';

/**
 * How far this run's files are, for the progress line. Counted from the queue's change notices:
 * the samples a batch touched are looked up when the line is next drawn. Never a count of every
 * sample in the data folder, which also holds earlier runs' samples (a second upload into the
 * default folder would otherwise start at "20000/500 uploaded").
 */
export class UploadTally {
  readonly #store: SampleStore;
  readonly #mine = new Set<string>();
  readonly #pending = new Set<string>();
  /** Changed before the import reported them (a batch can settle while a big file is still indexed). */
  readonly #early = new Set<string>();
  /** Samples of this run that reached an end: on the platform (true) or given up on (false). */
  readonly #ended = new Map<string, boolean>();
  #uploaded = 0;
  #notUploaded = 0;

  constructor(store: SampleStore) {
    this.#store = store;
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

  counts(): { uploaded: number; notUploaded: number } {
    if (this.#pending.size > 0) {
      const ids = [...this.#pending];
      this.#pending.clear();
      const now = this.#store.verdicts(ids);
      for (const id of ids) this.#note(id, now.get(id)?.state ?? null);
    }
    return { uploaded: this.#uploaded, notUploaded: this.#notUploaded };
  }

  #note(id: string, state: SampleState | null): void {
    const before = this.#ended.get(id);
    const after = state === 'uploaded' ? true : state === 'rejected' || state === 'failed' ? false : undefined;
    if (before === after) return;
    if (before !== undefined) before ? this.#uploaded-- : this.#notUploaded--;
    if (after === undefined) this.#ended.delete(id);
    else {
      this.#ended.set(id, after);
      after ? this.#uploaded++ : this.#notUploaded++;
    }
  }
}
