/** Samples in the data folder: listing and finding them, bulk actions, adding files, the upload queue, the class balance. */
import { z } from 'zod';
import { Category } from '../category.js';
import { MAX_IDS } from './limits.js';
import { Ids, JobId, Label, ModelWorkers, none, StrideMs, Threshold } from './method-args.js';
import { ModelName } from './model-schema.js';
import {
  AddPathResult, BulkResult, ClassBalance, DatasetSummary, Metadata, PendingUploads, QueueStatus, Sample, SampleFacets, SampleQueryFilter, SampleSort, SampleState,
} from './sample-schema.js';

export const sampleMethods = {
  'samples.list': {
    input: z
      .object({
        states: z.array(SampleState).optional(),
        flagged: z.boolean().optional(),
        /** Only these samples (a view's own records, asked again after samples.changed); ids not answered were deleted. */
        ids: z.array(z.string().min(1)).max(MAX_IDS).optional(),
        limit: z.number().int().positive().max(MAX_IDS).optional(),
        offset: z.number().int().nonnegative().optional(),
      })
      .strict(),
    output: z.object({ samples: z.array(Sample), total: z.number().int().nonnegative() }),
  },
  /**
   * Finding samples among tens of thousands: a filter (search text, labels, category, state,
   * quality, source, session, dates), a sort (newest first by default) and a page (limit/offset;
   * the last page is offset ⌊(total−1)/limit⌋·limit). `total` is how many match in all. Answered
   * by SQLite's indexes in milliseconds on 50,000 samples (npm run bench -- dataset).
   */
  'samples.query': {
    input: z
      .object({ filter: SampleQueryFilter.optional(), sort: SampleSort.optional(), limit: z.number().int().positive().max(MAX_IDS).optional(), offset: z.number().int().nonnegative().optional() })
      .strict(),
    output: z.object({ samples: z.array(Sample), total: z.number().int().nonnegative(), offset: z.number().int().nonnegative(), limit: z.number().int().positive() }),
  },
  /** The ids of every sample a filter matches, in the sort's order, in one query ("select all N matching"); at most `limit` (default and max 100,000). */
  'samples.idsMatching': {
    input: z.object({ filter: SampleQueryFilter.optional(), sort: SampleSort.optional(), limit: z.number().int().positive().max(100_000).optional() }).strict(),
    output: z.object({ ids: z.array(z.string()), total: z.number().int().nonnegative() }),
  },
  /** What the folder holds, for filter chips: labels, categories, states, kinds, quality findings, sources, recent sessions, what the model says, date range, with counts. */
  'samples.facets': { input: none, output: SampleFacets },
  /**
   * A bulk action on every sample a filter matches (not just a page): set label or category, queue
   * (force = "Upload anyway"), take out of the queue, delete, export (a job like samples.export,
   * progress as samples.progress op "export", cancelled by samples.cancel), or classify with an
   * added model on this computer (a job, op "classify": samples spread over `workers` model
   * workers, one per core up to 4 unless said, each sample whole in one; each result kept as
   * it is made, so a cancel keeps those finished; a sample that cannot be classified is left with
   * its reason, code too-short, misfit or not-classified, and the rest go on). dryRun: nothing
   * changes, the answer says what would ("Set label on 12,345 samples? 2,000 on the platform stay
   * as they are"). expectTotal: the count the person confirmed; if the filter now matches another
   * number, nothing changes and the call fails (InvalidArguments) saying both numbers.
   */
  'samples.bulk': {
    input: z
      .object({
        filter: SampleQueryFilter,
        action: z.discriminatedUnion('type', [
          z.object({ type: z.literal('label'), label: Label.nullable() }).strict(),
          z.object({ type: z.literal('category'), category: Category }).strict(),
          z.object({ type: z.literal('queue'), force: z.boolean().optional() }).strict(),
          z.object({ type: z.literal('dequeue') }).strict(),
          z.object({ type: z.literal('delete') }).strict(),
          z.object({ type: z.literal('export'), jobId: JobId, outDir: z.string().min(1).max(4096).optional(), csv: z.boolean().optional() }).strict(),
          z.object({ type: z.literal('classify'), jobId: JobId, model: ModelName, strideMs: StrideMs.optional(), threshold: Threshold.optional(), workers: ModelWorkers.optional() }).strict(),
        ]),
        dryRun: z.boolean().optional(),
        expectTotal: z.number().int().nonnegative().optional(),
      })
      .strict(),
    output: BulkResult,
  },
  /** Bulk relabel / recategorise / set metadata of samples not yet on the platform. */
  'samples.update': {
    input: z.object({ ids: Ids, label: Label.nullable().optional(), category: Category.optional(), metadata: Metadata.optional() }).strict(),
    output: z.object({ updated: z.array(Sample) }),
  },
  'samples.delete': { input: z.object({ ids: Ids }).strict(), output: z.object({ deleted: z.number().int() }) },
  /** A file dropped on the window. label: undefined = the platform's file-name rule, null = no label. */
  'samples.addFile': {
    input: z
      .object({ name: z.string().min(1).max(255), bytes: z.instanceof(Uint8Array), category: Category, label: Label.nullable().optional(), metadata: Metadata.optional(), queue: z.boolean().optional() })
      .strict(),
    output: Sample,
  },
  /**
   * Files added where they lie (the Electron window's drop and picker, which know real paths): no
   * copy through the UI, so the only size cap is the platform's 100 MB per file. Each path gets its
   * own outcome; one refused file never stops the others. label as in samples.addFile.
   */
  'samples.addPaths': {
    input: z
      .object({ paths: z.array(z.string().min(1).max(4096)).min(1).max(10_000), category: Category, label: Label.nullable().optional(), metadata: Metadata.optional(), queue: z.boolean().optional() })
      .strict(),
    output: z.object({ results: z.array(AddPathResult) }),
  },
  /** Runs the data-quality checks again (e.g. after changing the minimum length); never changes queue state. */
  'samples.checkQuality': { input: z.object({ ids: Ids }).strict(), output: z.object({ checked: z.array(Sample) }) },
  /** Moves an uploaded sample to another category on the platform (management API). */
  'samples.move': { input: z.object({ id: z.string(), newCategory: Category.exclude(['split']) }).strict(), output: Sample },

  'queue.status': { input: none, output: QueueStatus },
  /** Flagged samples the quality setting holds back stay local and are counted in `held`; force = "Upload anyway". */
  'queue.enqueue': { input: z.object({ ids: Ids, force: z.boolean().optional() }).strict(), output: z.object({ queued: z.number().int(), held: z.number().int() }) },
  'queue.dequeue': { input: z.object({ ids: Ids }).strict(), output: z.object({ dequeued: z.number().int() }) },
  'queue.pause': { input: none, output: QueueStatus },
  'queue.resume': { input: none, output: QueueStatus },
  /** What waits to be sent, in queue order: the first `limit` (default 50) and the count of all. */
  'uploads.pending': { input: z.object({ limit: z.number().int().min(1).max(500).optional() }).strict(), output: PendingUploads },

  /**
   * The class balance. `balance` is the whole truth, online or not: every sample of this data
   * folder by category × label and by where it is (uploaded, queued, local, failed), with the
   * platform's numbers and the difference in words beside them when it answers. platform: false
   * skips asking the platform (an instant first paint; ask again for its numbers). `platform` and
   * `local` are the older halves (the platform's summary; samples not yet uploaded) kept for views
   * built on them.
   */
  'dataset.summary': {
    input: z.object({ platform: z.boolean().optional() }).strict(),
    output: z.object({ platform: DatasetSummary.nullable(), platformError: z.string().nullable(), local: DatasetSummary, balance: ClassBalance }),
  },
} as const;
