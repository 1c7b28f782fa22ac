/**
 * Shapes of "does the model get it right?": a sample classified on the platform (classify/v2),
 * kept per sample, impulse and variant. Imported by contract.ts, so nothing here may import Node.
 */
import { z } from 'zod';

/** The model variants the platform's classify/v2 takes (its third, accelerator-specific one is not offered). */
export const ClassifyVariant = z.enum(['int8', 'float32']);
export type ClassifyVariant = z.infer<typeof ClassifyVariant>;
/** A platform impulse id; null = the project's default impulse. */
export const ImpulseId = z.number().int().positive().max(2 ** 31 - 1);
/** Which takes are classified once the platform confirmed their upload: none, those going to testing, or all. */
export const ClassifyAfterUpload = z.enum(['off', 'testing', 'all']);
export type ClassifyAfterUpload = z.infer<typeof ClassifyAfterUpload>;

/** Remembered per project (Settings.classifyTargets, keyed by the project id as text). */
export const ClassifyTarget = z.object({ variant: ClassifyVariant, impulseId: ImpulseId.nullable() }).strict();
export type ClassifyTarget = z.infer<typeof ClassifyTarget>;

/** What the sample view's pickers and the capture option show: the current project's choice. */
export const ClassifyOptions = z.object({
  projectId: z.number().int().positive().nullable(),
  variant: ClassifyVariant,
  impulseId: ImpulseId.nullable(),
  afterUpload: ClassifyAfterUpload,
});
export type ClassifyOptions = z.infer<typeof ClassifyOptions>;

/** One sliding window: i × windowIncreaseMs to + windowSizeMs, clipped to the sample. */
export const ClassifiedWindow = z.object({
  index: z.number().int().nonnegative(),
  startMs: z.number().nonnegative(),
  endMs: z.number().nonnegative(),
  /** The highest-scoring label (anomaly excluded); null when the block gives no labels. */
  label: z.string().nullable(),
  confidence: z.number().nullable(),
  /** Every label's score as the platform gave it (anomaly excluded). */
  scores: z.record(z.string(), z.number()),
  /** The window's anomaly score, when the impulse has an anomaly block. */
  anomaly: z.number().nullable(),
  /** The top score is below the block's minimumConfidenceRating. */
  uncertain: z.boolean(),
});
export type ClassifiedWindow = z.infer<typeof ClassifiedWindow>;

/** Counts for the summary line; `text` is the line itself ("wave: 7 of 9 windows, mean confidence 0.91; 2 windows say idle"). */
export const ClassificationSummary = z.object({
  windows: z.number().int().nonnegative(),
  byLabel: z.record(z.string(), z.number().int().nonnegative()),
  /** The sample's own label (what the model should say); null for an unlabeled sample. */
  expected: z.string().nullable(),
  /** Windows whose top label is `expected`; null without one. */
  agree: z.number().int().nonnegative().nullable(),
  /** The label the line leads with: `expected` when set, else the most frequent top label. */
  lead: z.string().nullable(),
  /** Mean top-label confidence of the windows that say `lead`. */
  meanConfidence: z.number().nullable(),
  uncertain: z.number().int().nonnegative(),
  /** Highest window anomaly score, when there is an anomaly block. */
  maxAnomaly: z.number().nullable(),
  text: z.string(),
});
export type ClassificationSummary = z.infer<typeof ClassificationSummary>;

/** One learn block's answer (an impulse may have several: the sample view offers a block picker). */
export const ClassifiedBlock = z.object({
  id: z.number().int(),
  name: z.string(),
  title: z.string(),
  /** Every label the block scored, in the platform's order. */
  labels: z.array(z.string()),
  minimumConfidenceRating: z.number().nullable(),
  hasAnomaly: z.boolean(),
  windows: z.array(ClassifiedWindow),
  summary: ClassificationSummary,
});
export type ClassifiedBlock = z.infer<typeof ClassifiedBlock>;

export const Classification = z.object({
  /** The local sample. */
  sampleId: z.string(),
  /** The id the platform knows it by (files[].sampleId of its upload). */
  platformSampleId: z.number().int(),
  impulseId: ImpulseId.nullable(),
  variant: ClassifyVariant,
  /** When the platform answered (ISO time): a kept result says how old it is. */
  classifiedAt: z.string(),
  lengthMs: z.number().nonnegative(),
  windowSizeMs: z.number().positive(),
  windowIncreaseMs: z.number().positive(),
  /** The platform had this classification cached. */
  alreadyInDatabase: z.boolean(),
  /** The platform's warning, to be shown as given. */
  warning: z.string().nullable(),
  blocks: z.array(ClassifiedBlock).min(1),
});
export type Classification = z.infer<typeof Classification>;

/** A kept result without its windows: the samples table's "model says" column, the capture panel's line. */
export const ClassificationDigest = z.object({
  id: z.string(),
  impulseId: ImpulseId.nullable(),
  variant: ClassifyVariant,
  classifiedAt: z.string(),
  warning: z.string().nullable(),
  /** The summary line; with several learn blocks, "<block name>: <line>" for each, joined by " | ". */
  text: z.string(),
  blocks: z.array(z.object({ id: z.number().int(), name: z.string(), summary: ClassificationSummary })),
});
export type ClassificationDigest = z.infer<typeof ClassificationDigest>;

/** The "collect more of" view: takes per label and what the model made of them. */
export const CollectSummary = z.object({
  /** Takes saved from this time on (ISO); null = every take this data folder knows. */
  since: z.string().nullable(),
  /** A recording session (its samples' metadata.session), when asked for one. */
  sessionId: z.string().nullable(),
  takes: z.number().int().nonnegative(),
  classifiedTakes: z.number().int().nonnegative(),
  labels: z.array(z.object({
    /** The takes' label (null = unlabeled takes). */
    label: z.string().nullable(),
    takes: z.number().int().nonnegative(),
    classifiedTakes: z.number().int().nonnegative(),
    /** Windows of this label's classified takes. */
    windows: z.number().int().nonnegative(),
    /** Of those, the windows the model gave this label. */
    agree: z.number().int().nonnegative(),
    /** Windows of any classified take the model gave this label. */
    windowsClassifiedAs: z.number().int().nonnegative(),
  })),
  /** Most-confused pairs first: windows of takes labeled `expected` that the model said were `predicted`. */
  confusions: z.array(z.object({ expected: z.string(), predicted: z.string(), windows: z.number().int().positive() })),
  /** Labels to collect more of, worst first, each with its reason in words. */
  collectMoreOf: z.array(z.object({ label: z.string(), reason: z.string() })),
});
export type CollectSummary = z.infer<typeof CollectSummary>;
