import { z } from 'zod';
import type { Classification, ClassificationDigest, ClassificationSummary, ClassifiedBlock, ClassifiedWindow, ClassifyVariant } from '../contract/classify-schema.js';
import { sourceText } from '../contract/classify-schema.js';
import { summarize } from './classify-summary.js';

export { summarize };

/**
 * The platform's classify/v2 answer (spec: Classification and testing; Classification result per
 * learn block; Sample detail wrapper), read for what the app keeps. Unknown fields pass.
 */
const RawBlock = z.object({
  learnBlock: z.object({ id: z.number(), type: z.string().optional(), name: z.string().optional(), title: z.string().optional() }).passthrough().optional(),
  result: z.array(z.record(z.string(), z.number())),
  /** Declared: "The minimum confidence rating for this block. For regression, this is the absolute error (which can be larger than 1)." */
  minimumConfidenceRating: z.number().optional(),
}).passthrough();

export const RawClassifyAnswer = z.object({
  classifications: z.array(RawBlock),
  sample: z.object({
    sample: z.object({ totalLengthMs: z.number().optional() }).passthrough().optional(),
    payload: z.object({ intervalMs: z.number().optional() }).passthrough().optional(),
    totalPayloadLength: z.number().optional(),
  }).passthrough(),
  // Declared as numbers (not integers); classify-client refuses only what places no window (≤ 0, not finite).
  windowSizeMs: z.number(),
  windowIncreaseMs: z.number(),
  /** Declared: "Whether this sample is already in the training database". */
  alreadyInDatabase: z.boolean(),
  warning: z.string().optional(),
}).passthrough();
export type RawClassifyAnswer = z.infer<typeof RawClassifyAnswer>;

/** The key a result object uses for the anomaly score (spec: "may include an anomaly entry"). */
const ANOMALY = 'anomaly';

/**
 * A regression learn block (declared LearnBlockType keras-regression): its minimumConfidenceRating
 * is an absolute error, not a confidence, so it marks no window uncertain.
 */
export const isRegression = (type: string | undefined): boolean => type !== undefined && /regression/.test(type);

export interface ReadContext {
  sampleId: string;
  platformSampleId: number;
  impulseId: number | null;
  variant: ClassifyVariant;
  classifiedAt: string;
  /** The sample's own label: what the model should say. */
  expected: string | null;
  /** The local sample's length, used when the platform does not say it. */
  localLengthMs: number | null;
}

/** The sample's length as the platform has it; else the local one; else as far as the windows reach. */
function lengthOf(a: RawClassifyAnswer, local: number | null, windows: number): number {
  const s = a.sample;
  if (typeof s.sample?.totalLengthMs === 'number' && s.sample.totalLengthMs > 0) return s.sample.totalLengthMs;
  if (typeof s.totalPayloadLength === 'number' && typeof s.payload?.intervalMs === 'number' && s.totalPayloadLength > 0) return s.totalPayloadLength * s.payload.intervalMs;
  if (local !== null && local > 0) return local;
  return Math.max(0, windows - 1) * a.windowIncreaseMs + a.windowSizeMs;
}

/** Window i of a sample: i × increase to + size, clipped to the sample. */
export function windowSpan(i: number, sizeMs: number, increaseMs: number, lengthMs: number): { startMs: number; endMs: number } {
  return { startMs: Math.min(i * increaseMs, lengthMs), endMs: Math.min(i * increaseMs + sizeMs, lengthMs) };
}

export function readClassification(a: RawClassifyAnswer, ctx: ReadContext): Classification {
  const longest = Math.max(0, ...a.classifications.map((c) => c.result.length));
  const lengthMs = lengthOf(a, ctx.localLengthMs, longest);
  const blocks = a.classifications.map((c, b): ClassifiedBlock => {
    const labels: string[] = [];
    for (const r of c.result) for (const k of Object.keys(r)) if (k !== ANOMALY && !labels.includes(k)) labels.push(k);
    const minConf = isRegression(c.learnBlock?.type) ? null : (c.minimumConfidenceRating ?? null);
    const windows = c.result.map((r, i): ClassifiedWindow => {
      const scores: Record<string, number> = {};
      let label: string | null = null;
      for (const l of labels) {
        const v = r[l];
        if (v === undefined) continue;
        scores[l] = v;
        if (label === null || v > scores[label]!) label = l;
      }
      const confidence = label === null ? null : scores[label]!;
      return {
        index: i,
        ...windowSpan(i, a.windowSizeMs, a.windowIncreaseMs, lengthMs),
        label,
        confidence,
        scores,
        anomaly: typeof r[ANOMALY] === 'number' ? r[ANOMALY] : null,
        uncertain: confidence !== null && minConf !== null && confidence < minConf,
      };
    });
    const hasAnomaly = windows.some((w) => w.anomaly !== null);
    const lb = c.learnBlock;
    return {
      id: lb?.id ?? b,
      name: lb?.name ?? lb?.title ?? `Learn block ${b + 1}`,
      title: lb?.title ?? lb?.name ?? '',
      labels,
      minimumConfidenceRating: minConf,
      hasAnomaly,
      windows,
      summary: summarize(windows, ctx.expected, labels, minConf),
    };
  });
  return {
    sampleId: ctx.sampleId,
    platformSampleId: ctx.platformSampleId,
    impulseId: ctx.impulseId,
    variant: ctx.variant,
    classifiedAt: ctx.classifiedAt,
    lengthMs,
    windowSizeMs: a.windowSizeMs,
    windowIncreaseMs: a.windowIncreaseMs,
    alreadyInDatabase: a.alreadyInDatabase,
    warning: a.warning ?? null,
    blocks,
  };
}

export function digestOf(c: Classification): ClassificationDigest {
  return {
    id: c.sampleId,
    impulseId: c.impulseId,
    variant: c.variant,
    local: c.local ?? null,
    source: sourceText(c),
    classifiedAt: c.classifiedAt,
    warning: c.warning,
    text: c.blocks.length === 1 ? c.blocks[0]!.summary.text : c.blocks.map((b) => `${b.name}: ${b.summary.text}`).join(' | '),
    blocks: c.blocks.map((b) => ({ id: b.id, name: b.name, summary: b.summary })),
  };
}
