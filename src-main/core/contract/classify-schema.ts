/**
 * Shapes of "does the model get it right?": a sample classified on the platform (classify/v2) or
 * on this computer by an added model (core/model/classify-sample.ts), kept per sample, impulse and
 * variant. Imported by contract.ts, so nothing here may import Node.
 */
import { z } from 'zod';
import { WireError } from './wire-schema.js';

/** The model variants the platform's classify/v2 takes (its third, accelerator-specific one is not offered). */
export const ClassifyVariant = z.enum(['int8', 'float32']);
export type ClassifyVariant = z.infer<typeof ClassifyVariant>;
/**
 * What a kept result is kept under: the platform's variant, or `local:<hash16>` for a result made
 * on this computer (the first 16 hex digits of the model build's hash: one result per build).
 */
export const ResultVariant = z.union([ClassifyVariant, z.string().regex(/^local:[0-9a-f]{1,64}$/, 'a local variant is "local:" and the model build\'s hash')]);
export type ResultVariant = z.infer<typeof ResultVariant>;
/**
 * Which added model made a local result: its name when it ran, its build's hash, the confidence
 * threshold used; `sampleSha256`, the sample's content it classified (a model test reuses a result
 * only for the same bytes; results kept before it was recorded lack it and are made again).
 */
export const LocalSource = z.object({ model: z.string().min(1), hash: z.string().min(1), threshold: z.number().min(0).max(1), sampleSha256: z.string().optional() });
export type LocalSource = z.infer<typeof LocalSource>;
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
  /** The top score is below the block's minimumConfidenceRating (never in a regression block). */
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
  /** Windows below it are uncertain; null when the platform gave none, or for a regression block (its number is an absolute error). */
  minimumConfidenceRating: z.number().nullable(),
  hasAnomaly: z.boolean(),
  windows: z.array(ClassifiedWindow),
  summary: ClassificationSummary,
});
export type ClassifiedBlock = z.infer<typeof ClassifiedBlock>;

export const Classification = z.object({
  /** The local sample. */
  sampleId: z.string(),
  /** The id the platform knows it by (files[].sampleId of its upload); null for a local result (the sample need not be uploaded). */
  platformSampleId: z.number().int().nullable(),
  /** The platform's impulse (null = its default); always null for a local result. */
  impulseId: ImpulseId.nullable(),
  variant: ResultVariant,
  /** Set when the result was made on this computer by an added model; null or absent for the platform's. */
  local: LocalSource.nullable().optional(),
  /** When the platform (or the local model) answered (ISO time): a kept result says how old it is. */
  classifiedAt: z.string(),
  lengthMs: z.number().nonnegative(),
  windowSizeMs: z.number().positive(),
  windowIncreaseMs: z.number().positive(),
  /** The platform says the sample is already in the project's training data (the model may have learnt from it); false for a local result. */
  alreadyInDatabase: z.boolean(),
  /** The platform's warning, to be shown as given. */
  warning: z.string().nullable(),
  blocks: z.array(ClassifiedBlock).min(1),
}).refine(
  (c) => (c.local ? c.platformSampleId === null && c.impulseId === null && c.variant.startsWith('local:') : c.platformSampleId !== null && !c.variant.startsWith('local:')),
  'a local result has `local`, a local: variant and no platform sample or impulse; a platform result has a platform sample id and the platform\'s variant',
);
export type Classification = z.infer<typeof Classification>;

/** Where a result came from, in words: "the platform, impulse 2, int8" or "on this computer: gestures". */
export function sourceText(c: Pick<Classification, 'local' | 'impulseId' | 'variant'>): string {
  if (c.local) return `on this computer: ${c.local.model}`;
  return `the platform, ${c.impulseId === null ? 'default impulse' : `impulse ${c.impulseId}`}, ${c.variant}`;
}

/** A kept result without its windows: the samples table's "model says" column, the capture panel's line. */
export const ClassificationDigest = z.object({
  id: z.string(),
  impulseId: ImpulseId.nullable(),
  variant: ResultVariant,
  /** The added model that made it on this computer; null for the platform's. */
  local: LocalSource.nullable(),
  /** Where it came from, in words (sourceText): "the platform, impulse 2, int8", "on this computer: gestures". */
  source: z.string(),
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

/** A classification's progress: asked (samples.classify) or after upload (auto). */
export const ClassifyState = z.object({
  id: z.string(),
  /** True for "classify each take after upload". */
  auto: z.boolean(),
  state: z.enum(['classifying', 'waiting', 'done', 'failed', 'cancelled']),
  impulseId: ImpulseId.nullable(),
  variant: ClassifyVariant,
  /** Requests made so far, this one included. */
  attempt: z.number().int().nonnegative(),
  /** "waiting": when the next request goes out. */
  retryInMs: z.number().nonnegative().nullable(),
  /** For people: what is happening, or what to do. */
  message: z.string().nullable(),
  /** "done": the summary (samples.classification has the windows). */
  digest: ClassificationDigest.nullable(),
  /** "failed"/"cancelled": why; details {reason, platformMessage}. */
  error: WireError.nullable(),
});
export type ClassifyState = z.infer<typeof ClassifyState>;
