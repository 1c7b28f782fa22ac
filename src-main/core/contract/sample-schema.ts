// The shapes of samples in the contract: a sample and its quality report, the upload queue's
// status, the class balance's counts, and what finding samples takes and answers (filters, sorts,
// facets, bulk results). The contract's face (contract.ts) re-exports every name here.
import { z } from 'zod';
import { Category } from '../category.js';
import { MAX_IDS } from './limits.js';

// ---------- samples and uploads ----------

export { Category };
export const SampleKind = z.enum(['sensor', 'audio', 'image', 'video', 'other']);
export type SampleKind = z.infer<typeof SampleKind>;
/** local → queued → uploading → uploaded | failed | rejected. "rejected" = the platform refused the content. */
export const SampleState = z.enum(['local', 'queued', 'uploading', 'uploaded', 'failed', 'rejected']);
export type SampleState = z.infer<typeof SampleState>;

export const BoundingBox = z.object({ label: z.string(), x: z.number(), y: z.number(), width: z.number(), height: z.number() });
export type BoundingBox = z.infer<typeof BoundingBox>;
/** As the platform's Sample.structuredLabels: sample indices, endIndex inclusive. */
export const StructuredLabel = z.object({ startIndex: z.number().int().nonnegative(), endIndex: z.number().int().nonnegative(), label: z.string().min(1) });
export type StructuredLabel = z.infer<typeof StructuredLabel>;
export const Metadata = z.record(z.string(), z.string());

// ---------- data quality (issue 6) ----------

/** What a quality check can find; the code is for filters and tests, the message for people. */
export const QualityCode = z.enum([
  'unreadable', 'too-short', 'lost-readings', 'rejected-lines', 'irregular-timing', 'timestamp-gaps', 'rate-mismatch',
  'flat-axis', 'flat-stretch', 'clipping', 'silence', 'dropouts',
]);
export type QualityCode = z.infer<typeof QualityCode>;
export const QualitySeverity = z.enum(['warning', 'error']);
export type QualitySeverity = z.infer<typeof QualitySeverity>;
export const QualityFinding = z.object({
  code: QualityCode,
  severity: QualitySeverity,
  /** Names the problem and what to do about it. */
  message: z.string(),
});
export type QualityFinding = z.infer<typeof QualityFinding>;
export const QualityReport = z.object({ checkedAt: z.string(), findings: z.array(QualityFinding) });
export type QualityReport = z.infer<typeof QualityReport>;

export const Sample = z.object({
  id: z.string(),
  /** The file name the platform receives. */
  name: z.string(),
  /** Where the bytes are: inside the data directory for captures, the original path for imports. */
  file: z.string(),
  kind: SampleKind,
  /** null = unlabeled (sent with x-no-label). */
  label: z.string().nullable(),
  category: Category,
  metadata: Metadata,
  boundingBoxes: z.array(BoundingBox),
  structuredLabels: z.array(StructuredLabel).nullable(),
  created: z.string(),
  bytes: z.number().int().nonnegative(),
  sha256: z.string(),
  lengthMs: z.number().nullable(),
  incomplete: z.boolean(),
  state: SampleState,
  attempts: z.number().int().nonnegative(),
  error: z.string().nullable(),
  note: z.string().nullable(),
  platformSampleId: z.number().int().nullable(),
  uploadedAt: z.string().nullable(),
  /** Capture facts, e.g. rows, interval_ms, rejected_lines, jitter_ms (serial recordings). */
  extra: z.record(z.string(), z.unknown()),
  /** null = never checked (added by the CLI, or before quality checks existed). */
  quality: QualityReport.nullable(),
  /** The worst finding's severity, null when the checks found nothing. */
  flagged: QualitySeverity.nullable(),
  /** Kept out of the upload queue by the quality setting; "Upload anyway" (queue.enqueue with force) sends it. */
  heldBack: z.boolean(),
});
export type Sample = z.infer<typeof Sample>;

/** One file of samples.addPaths: added now, already added earlier (same path and content), or refused and why. */
export const AddPathResult = z.discriminatedUnion('status', [
  z.object({ path: z.string(), status: z.literal('added'), sample: Sample }),
  z.object({ path: z.string(), status: z.literal('known'), sample: Sample }),
  z.object({ path: z.string(), status: z.literal('refused'), reason: z.string() }),
]);
export type AddPathResult = z.infer<typeof AddPathResult>;

export const QueueStatus = z.object({
  paused: z.boolean(),
  /** Why the queue is not sending, in words the user can act on (e.g. the key was refused). */
  pausedReason: z.string().nullable(),
  online: z.boolean(),
  inFlight: z.number().int().nonnegative(),
  counts: z.record(SampleState, z.number().int().nonnegative()),
});
export type QueueStatus = z.infer<typeof QueueStatus>;

/** A sample waiting to be sent, with the words it will be sent with now (an edit before it goes changes them). */
export const PendingUpload = z.object({
  id: z.string(),
  name: z.string(),
  /** Null: sent without a label. */
  label: z.string().nullable(),
  /** The label is the one the platform derives from the file name: no label is sent, the platform applies its rule. */
  labelFromName: z.boolean(),
  category: Category,
  /** 'uploading': a request carrying it is on its way. */
  state: z.enum(['queued', 'uploading']),
  /** Epoch ms of the next try after a failed one; null when it goes at its turn. */
  nextAttemptAt: z.number().nullable(),
  attempts: z.number().int().nonnegative(),
  error: z.string().nullable(),
});
export type PendingUpload = z.infer<typeof PendingUpload>;

/** The first samples waiting to be sent, in queue order (in flight first), and how many wait in all. */
export const PendingUploads = z.object({ items: z.array(PendingUpload), total: z.number().int().nonnegative() });
export type PendingUploads = z.infer<typeof PendingUploads>;

export const LabelTotals = z.object({ label: z.string(), count: z.number().int().nonnegative(), totalLengthMs: z.number().nonnegative() });
export const CategoryTotals = z.object({ itemCount: z.number().int().nonnegative(), totalLengthMs: z.number().nonnegative(), labels: z.array(LabelTotals) });
/** Counts and lengths per label × category, from the management API (or from local samples). */
export const DatasetSummary = z.object({
  hasValidation: z.boolean(),
  categories: z.object({ training: CategoryTotals, testing: CategoryTotals, validation: CategoryTotals, 'post-processing': CategoryTotals }),
});
export type DatasetSummary = z.infer<typeof DatasetSummary>;

/**
 * One row of the class balance (issue 22): what this data folder knows, by where each sample is,
 * and the platform's own count beside it. uploaded + queued + local + failed = total, always.
 */
export const BalanceCounts = z.object({
  /** Confirmed by the platform (it answered the upload). Known offline: the index remembers. */
  uploaded: z.number().int().nonnegative(),
  /** In the upload queue, or being sent now. */
  queued: z.number().int().nonnegative(),
  /** On this computer only, not queued (kept back by you or by the quality setting). */
  local: z.number().int().nonnegative(),
  /** Not on the platform: the upload failed after its retries, or the platform refused the file. */
  failed: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
  /** Length of all of them, ms (a sample of unknown length adds nothing). */
  totalLengthMs: z.number().nonnegative(),
  /** The platform's count and length for the same row; null when it was not reached (or not asked). */
  platform: z.object({ count: z.number().int().nonnegative(), totalLengthMs: z.number().nonnegative() }).nullable(),
  /** platform.count − uploaded: above 0, samples added there another way; below 0, deleted or moved there. Null without the platform. */
  difference: z.number().int().nullable(),
  /** The difference in words, e.g. "12 more on the platform than uploaded from here"; null without the platform. */
  differenceText: z.string().nullable(),
});
export type BalanceCounts = z.infer<typeof BalanceCounts>;
/** A label's row; label null = unlabeled samples. */
export const BalanceLabel = BalanceCounts.extend({ label: z.string().nullable() });
export type BalanceLabel = z.infer<typeof BalanceLabel>;
export const BalanceCategory = BalanceCounts.extend({ labels: z.array(BalanceLabel) });
export type BalanceCategory = z.infer<typeof BalanceCategory>;
export const ClassBalance = z.object({
  /** "split" samples count under training until the platform places them. */
  categories: z.object({ training: BalanceCategory, testing: BalanceCategory, validation: BalanceCategory, 'post-processing': BalanceCategory }),
  /** Per label over every category (the labels a filter chip or a click on the class balance filters by). */
  labels: z.array(BalanceLabel),
  /** Everything in this data folder. */
  all: BalanceCounts,
  /** Whether the platform's numbers are in (platform / difference filled in). */
  platformReached: z.boolean(),
  /** Why they are not, in words; null when reached. */
  platformError: z.string().nullable(),
  /** One sentence for the top of the class balance, online or not (counts, and the difference in words). */
  summary: z.string(),
});
export type ClassBalance = z.infer<typeof ClassBalance>;

// ---------- finding samples (issue 22) ----------

/** Sort orders of samples.query; ties keep the order the samples were indexed in. Unknown lengths sort as the shortest. */
export const SampleSortKey = z.enum(['created', 'name', 'label', 'length']);
export type SampleSortKey = z.infer<typeof SampleSortKey>;
export const SampleSort = z.object({ by: SampleSortKey, dir: z.enum(['asc', 'desc']) }).strict();
export type SampleSort = z.infer<typeof SampleSort>;
const IsoTime = z.string().datetime({ offset: true });
/**
 * Which samples: every given part must hold (AND); within a list any entry may (OR). An absent or
 * empty list constrains nothing, except `ids`, where an empty list matches nothing. Everything is
 * answered by the index in SQLite (core/samples/sample-query.ts), never from a list in memory.
 */
export const SampleQueryFilter = z
  .object({
    /**
     * Search in name, label, metadata values and note, case-insensitive; words separated by spaces
     * must all be found (each anywhere, as a part of a word too: "dle" finds "idle").
     */
    text: z.string().max(200).optional(),
    /** null = unlabeled. */
    labels: z.array(z.string().nullable()).max(1000).optional(),
    categories: z.array(Category).optional(),
    states: z.array(SampleState).optional(),
    kinds: z.array(SampleKind).optional(),
    /** true: has a quality finding (any severity); false: none (or never checked). */
    flagged: z.boolean().optional(),
    /** The worst finding is one of these. */
    severities: z.array(QualitySeverity).optional(),
    /** Has a finding with one of these codes ("quality finding" chips). */
    findings: z.array(QualityCode).optional(),
    /** The live source a capture came from (Sample.extra.source, e.g. "serial:/dev/ttyACM0"); see samples.facets. */
    sources: z.array(z.string().min(1)).max(100).optional(),
    /** The recording session (metadata "session", shared by the samples of one take); see samples.facets. */
    sessions: z.array(z.string().min(1)).max(1000).optional(),
    /** Indexed at or after (inclusive). */
    createdFrom: IsoTime.optional(),
    /** Indexed before (exclusive). */
    createdBefore: IsoTime.optional(),
    /** Only these samples. */
    ids: z.array(z.string().min(1)).max(MAX_IDS).optional(),
    /**
     * "Model says": the sample's newest kept classification (the one samples.modelSays shows) has
     * a learn block whose top label is one of these. A block's top label is the label most of its
     * windows say (ties: the block's label order), i.e. what its summary line leads with for an
     * unlabeled sample; not `summary.lead`, which is the sample's own label whenever it has one.
     */
    modelSays: z.array(z.string().min(1)).max(1000).optional(),
    /**
     * true: labeled, classified, and a learn block of the newest kept classification has a top
     * label (see modelSays) other than the sample's label as it is now (an unlabeled sample never
     * disagrees). false: every other sample, unclassified ones included.
     */
    modelDisagrees: z.boolean().optional(),
  })
  .strict();
export type SampleQueryFilter = z.infer<typeof SampleQueryFilter>;
export const SampleFacets = z.object({
  labels: z.array(z.object({ label: z.string().nullable(), count: z.number().int().nonnegative() })),
  categories: z.array(z.object({ category: Category, count: z.number().int().nonnegative() })),
  states: z.array(z.object({ state: SampleState, count: z.number().int().nonnegative() })),
  kinds: z.array(z.object({ kind: SampleKind, count: z.number().int().nonnegative() })),
  findings: z.array(z.object({ code: QualityCode, count: z.number().int().nonnegative() })),
  sources: z.array(z.object({ source: z.string(), count: z.number().int().nonnegative() })),
  /** The most recent 200 sessions, newest first. */
  sessions: z.array(z.object({ session: z.string(), count: z.number().int().nonnegative(), first: z.string(), last: z.string() })),
  /**
   * Per top label of the newest kept classification (see SampleQueryFilter.modelSays), the samples
   * it is the top label of, by label; a sample whose learn blocks say different labels counts under each.
   */
  modelSays: z.array(z.object({ label: z.string(), count: z.number().int().nonnegative() })),
  /** Samples with a kept classification ("Model says" shows one): the others are unclassified. */
  classified: z.number().int().nonnegative(),
  /** Samples with a data-quality finding (the "Flagged" filter). */
  flagged: z.number().int().nonnegative(),
  /** Oldest and newest `created` (null when the folder is empty), for a date range picker. */
  firstCreated: z.string().nullable(),
  lastCreated: z.string().nullable(),
  total: z.number().int().nonnegative(),
});
export type SampleFacets = z.infer<typeof SampleFacets>;
/** What a bulk action did (or, with dryRun, would do) to the samples a filter matches. */
export const BulkResult = z.object({
  /** Samples the filter matched. */
  matched: z.number().int().nonnegative(),
  /** Of those, how many this action changes (or would). */
  changed: z.number().int().nonnegative(),
  /**
   * The rest, grouped by why they are left as they are: `reason` in words (e.g. "already on the
   * platform: change their label there"), `code` for a view that acts on one of them ("held-back":
   * the data-quality setting kept them out of the queue; queue with force, "Upload anyway", sends them).
   * Classifying with a local model: "too-short" (shorter than one window), "misfit" (axes or rate
   * the model cannot take, or not a series of readings), "not-classified" (the file or the model failed).
   */
  unchanged: z.array(z.object({
    count: z.number().int().positive(),
    reason: z.string(),
    code: z.enum(['on-platform', 'uploading', 'in-queue', 'rate-missing', 'held-back', 'not-queued', 'too-short', 'misfit', 'not-classified']),
  })),
  /** Export only: the files written and where. */
  export: z.object({ files: z.number().int().nonnegative(), dir: z.string() }).nullable(),
});
export type BulkResult = z.infer<typeof BulkResult>;
