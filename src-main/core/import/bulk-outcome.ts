import type { Category, Sample, SampleState } from '../contract/contract.js';

// What a bulk import says of each file, apart from the import itself: bulk-import.ts makes these
// and retake.ts rewrites the words of those found again, so both read them from here.

/** What a person reads first about a sample on the platform: its label and its set. */
export interface Words {
  label: string | null;
  category: Category;
}

/** A file this run found unsent with other words than its own: they were replaced by this run's. */
export interface Retaken {
  /** What differed: 'label', 'category', 'metadata', 'bounding boxes', 'structured labels', 'flags', 'HMAC signing'. */
  changed: string[];
  now: Words;
}

/** A file this run names that is on the platform already, under other words than this run's. */
export interface OnPlatform {
  /** The words it was sent with; null when the platform refused it as a copy of a sample sent by someone else, whose words we never saw. */
  there: Words | null;
  platformSampleId: number | null;
  asked: Words;
}

/** Per file of a bulk import: its sample (new or found) and the state it had, or why it was refused. */
export type BulkOutcome =
  | {
    path: string; status: 'added' | 'known'; id: string; state: SampleState; /** With ImportOptions.withSamples, on the paths that have it at hand. */ sample?: Sample;
    /** With ImportOptions.retake: the earlier words this run's replaced, or the platform has it under other words. */
    retaken?: Retaken; onPlatform?: OnPlatform;
  }
  | { path: string; status: 'refused'; reason: string };
/** A file of a bulk import that has its sample. */
export type IndexedOutcome = Exclude<BulkOutcome, { status: 'refused' }>;
