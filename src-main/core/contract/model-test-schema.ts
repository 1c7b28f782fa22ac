/**
 * What models.test answers: a model (or two) tested on samples with known labels, as
 * `capture-desk model test` reports it (core/evaluate/model-report.ts makes the figures), with
 * each counted sample's predictions so a matrix cell can be shown as the samples it counts.
 */
import { z } from 'zod';

const Fraction = z.number().min(0).max(1);
const Count = z.number().int().nonnegative();

export const LabelFigures = z.object({ precision: Fraction, recall: Fraction, f1: Fraction, support: Count });
export type LabelFigures = z.infer<typeof LabelFigures>;

/** A label's anomaly scores over its samples (each sample's highest window). */
export const AnomalySpread = z.object({ min: z.number(), median: z.number(), max: z.number(), samples: Count });

export const ModelTestFigures = z.object({
  model: z.string(),
  /** A regression model answers a value: mae and rmse, no accuracy or matrix. */
  regression: z.boolean(),
  labels: z.array(z.string()),
  windowMs: z.number().positive(),
  strideMs: z.number().positive(),
  /** Samples this run classified, and those whose kept result (same build, stride, threshold, content) was used as it was. */
  classified: Count,
  reused: Count,
  /** Classification models; null for a regression model. */
  accuracy: Fraction.nullable(),
  uncertain: Count.nullable(),
  perLabel: z.record(z.string(), LabelFigures),
  /** actual → predicted → count; a row per label with samples, a column per model label and "uncertain" where it occurs. */
  confusion: z.record(z.string(), z.record(z.string(), Count)),
  /** Regression models; null otherwise. */
  mae: z.number().nullable(),
  rmse: z.number().nullable(),
  /** Models with an anomaly block; null otherwise. */
  anomaly: z.record(z.string(), AnomalySpread).nullable(),
});
export type ModelTestFigures = z.infer<typeof ModelTestFigures>;

/** A counted sample: its label and what each model predicted (a label, "uncertain", or a regression value), in the models' order. */
export const ModelTestSample = z.object({
  id: z.string(),
  name: z.string(),
  label: z.string(),
  predicted: z.array(z.union([z.string(), z.number()])),
  /** null for a regression model (a value is not right or wrong). */
  correct: z.array(z.boolean().nullable()),
});
export type ModelTestSample = z.infer<typeof ModelTestSample>;

export const ModelTestResult = z.object({
  threshold: Fraction,
  /** Samples the filter matched (counted + unfit). */
  matched: Count,
  models: z.array(ModelTestFigures).min(1).max(2),
  samples: z.array(ModelTestSample),
  /** Not counted, with why (with two models: unfit for either, so both are judged on the same samples). */
  unfit: z.array(z.object({ id: z.string(), name: z.string(), reason: z.string() })),
  /** Two models: samples the second gets right and the first got wrong (fixed), and the reverse (broken); empty for one. */
  fixed: z.array(z.string()),
  broken: z.array(z.string()),
});
export type ModelTestResult = z.infer<typeof ModelTestResult>;
