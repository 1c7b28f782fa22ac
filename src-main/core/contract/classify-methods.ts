/** Does the model get it right? A sample classified on the platform or by a model added on this computer. */
import { z } from 'zod';
import { Classification, ClassificationDigest, ClassifyAfterUpload, ClassifyOptions, ClassifyVariant, CollectSummary, ImpulseId } from './classify-schema.js';
import { Ids, none, StrideMs, Threshold } from './method-args.js';
import { ModelName } from './model-schema.js';

const ClassifyInput = z.object({
  id: z.string().min(1),
  /** Default: the project's remembered variant (samples.classifyOptions), else int8. */
  variant: ClassifyVariant.optional(),
  /** null = the project's default impulse; absent = the remembered impulse id. */
  impulseId: ImpulseId.nullable().optional(),
}).strict();

export const classifyMethods = {
  /**
   * Classifies an uploaded sample on the platform (classify/v2): one result per sliding window and
   * learn block, kept per sample, impulse and variant (the local sample never changes). When the
   * platform answers with a job it started, it waits for that job's status with backoff (events
   * samples.classifyState "waiting"), then asks once more, never starting a second job;
   * samples.cancelClassify stops the wait. Errors carry details {reason, platformMessage}.
   */
  'samples.classify': { input: ClassifyInput, output: Classification },
  /**
   * The kept result for the sample, variant and impulse (defaults as in samples.classify), without
   * asking the platform; null if none. With `model`: the newest result an added model of that name
   * made on this computer (samples.classifyLocal), whatever the sample's upload state.
   */
  'samples.classification': {
    input: z.object({ id: z.string().min(1), variant: ClassifyVariant.optional(), impulseId: ImpulseId.nullable().optional(), model: ModelName.optional() }).strict()
      .refine((i) => i.model === undefined || (i.variant === undefined && i.impulseId === undefined), 'give a model, or a variant and impulse id, not both'),
    output: Classification.nullable(),
  },
  /**
   * Classifies a sample in the data folder with an added model on this computer (models.*): no
   * upload, no platform settings. Windows of the model's length at i × strideMs from the sample's
   * start (default a quarter window), resampled when the rates differ by more than 1 %; kept like
   * the platform's results (variant "local:<hash16>", `local` says which model), so the review
   * plot's bands, "Model says" and its filter read it. Refused with a sentence (InvalidArguments,
   * details.reason "too-short" or "misfit") for a sample shorter than a window or whose axes or
   * rate do not fit the model; NotFound for a model not added.
   */
  'samples.classifyLocal': {
    input: z.object({ id: z.string().min(1), model: ModelName, strideMs: StrideMs.optional(), threshold: Threshold.optional() }).strict(),
    output: Classification,
  },
  /** Stops a samples.classify of this sample (it fails with Cancelled, nothing kept). */
  'samples.cancelClassify': { input: z.object({ id: z.string().min(1) }).strict(), output: z.object({ cancelled: z.boolean() }) },
  /** The current project's remembered variant and impulse id, and the capture option "classify each take after upload". */
  'samples.classifyOptions': { input: none, output: ClassifyOptions },
  /** Remembers variant and impulse id for the current project, and/or sets the capture option. */
  'samples.setClassifyOptions': {
    input: z.object({ variant: ClassifyVariant.optional(), impulseId: ImpulseId.nullable().optional(), afterUpload: ClassifyAfterUpload.optional() }).strict(),
    output: ClassifyOptions,
  },
  /** "Model says": the newest kept result of each sample that has one (samples without one are left out). */
  'samples.modelSays': { input: z.object({ ids: Ids }).strict(), output: z.object({ results: z.array(ClassificationDigest) }) },
  /**
   * "Collect more of": takes per label, windows classified as each label, the most-confused pairs.
   * since: takes saved from then (ISO; default: since this run of the app started); sessionId: one recording session.
   */
  'samples.collectSummary': {
    input: z.object({ since: z.string().datetime({ offset: true }).nullable().optional(), sessionId: z.string().min(1).max(100).optional() }).strict(),
    output: CollectSummary,
  },
} as const;
