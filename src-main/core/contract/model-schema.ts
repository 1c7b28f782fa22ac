/**
 * Shapes of "the project's model, run on this computer": an exported WebAssembly impulse added to
 * the data folder, described once, and its verdicts on live windows. Imported by contract.ts, so
 * nothing here may import Node. It lives in core/contract/, below the services that use it
 * (core/model/), so that they import down, not up.
 */
import { z } from 'zod';

/** What the export's `sensor` property says (-1 custom, 1 microphone, 2 accelerometer, 3 camera, 4 nine-axis IMU, 5 environmental). */
export const ModelSensor = z.enum(['custom', 'microphone', 'accelerometer', 'camera', 'imu', 'environmental', 'other']);
export type ModelSensor = z.infer<typeof ModelSensor>;

export function sensorKind(code: number): ModelSensor {
  switch (code) {
    case -1: return 'custom';
    case 1: return 'microphone';
    case 2: return 'accelerometer';
    case 3: return 'camera';
    case 4: return 'imu';
    case 5: return 'environmental';
    default: return 'other';
  }
}

/** A safe folder name: letters, digits, dot, dash, underscore; not starting with a dot. */
export const ModelName = z.string().regex(/^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$/, 'a model name is 1-64 letters, digits, ".", "-" or "_", not starting with "."');

export const ModelFile = z.object({ name: z.string(), bytes: z.number().int().nonnegative(), sha256: z.string() });

/** Everything the export says of itself, read once when it is added, and what was measured here. */
export const ModelDescription = z.object({
  sensorCode: z.number().int(),
  sensor: ModelSensor,
  frequencyHz: z.number().positive(),
  /** Samples per axis in one window (`frame_sample_count`). */
  frameSampleCount: z.number().int().positive(),
  windowMs: z.number().positive(),
  /** The axes one window holds; null when the build does not say and nobody gave it (--axes). */
  axes: z.number().int().positive().nullable(),
  /** Where `axes` came from: the export (`input_features_count`), the person (--axes), or nowhere yet. */
  axesFrom: z.enum(['model', 'given', 'unknown']),
  /** Floats per window, all axes (`input_features_count`, or frame_sample_count × given axes). */
  floatsPerWindow: z.number().int().positive().nullable(),
  labels: z.array(z.string()),
  hasAnomaly: z.boolean(),
  /** `model_type` of 2022+ builds ("classification"); null when the build does not say. */
  modelType: z.string().nullable(),
  /** Build generation: `init()` present (newer exports) and continuous mode (`run_classifier_continuous`). */
  hasInit: z.boolean(),
  continuous: z.boolean(),
  /** Floats per continuous slice (`slice_size`, else a quarter window); null without continuous mode. */
  sliceFloats: z.number().int().positive().nullable(),
  /** `get_project()` of builds that have it. */
  project: z.object({ id: z.number().nullable(), owner: z.string().nullable(), name: z.string().nullable(), deployVersion: z.number().nullable() }).nullable(),
  /** Time to start the runtime and to classify one window here (ms). */
  startMs: z.number().nonnegative(),
  classifyMs: z.number().nonnegative(),
});
export type ModelDescription = z.infer<typeof ModelDescription>;

/** An added model as kept in models/<name>/model.json. */
export const ModelRecord = z.object({
  name: ModelName,
  addedAt: z.string(),
  /** Where it was added from (the zip, folder or .js the person chose). */
  source: z.string(),
  js: ModelFile,
  wasm: ModelFile,
  /** sha256 over both files' hashes: identifies the build in kept results ("which model"). */
  hash: z.string(),
  description: ModelDescription,
});
export type ModelRecord = z.infer<typeof ModelRecord>;

/** A model as listed: its record and whether its files on disk are still what was added. */
export const ModelEntry = ModelRecord.extend({
  /** ready; changed = a file differs from when it was added; missing = a file is gone; failed = the runtime died twice in a row. */
  status: z.enum(['ready', 'changed', 'missing', 'failed']),
  /** What is wrong and what to do, when status is not ready. */
  problem: z.string().nullable(),
});
export type ModelEntry = z.infer<typeof ModelEntry>;

/** A model folder whose model.json cannot be read as a model: listed by name with what is wrong, so it can be removed. */
export const UnreadableModel = z.object({ name: z.string(), problem: z.string() });
export type UnreadableModel = z.infer<typeof UnreadableModel>;

/** One window classified by a local model. */
export const ModelVerdict = z.object({
  index: z.number().int().nonnegative(),
  /** The window on the stream's (or sample's) time axis, ms from its first reading. */
  startMs: z.number(),
  endMs: z.number(),
  /** Highest score; null when the model gave no labels. */
  label: z.string().nullable(),
  confidence: z.number().nullable(),
  scores: z.record(z.string(), z.number()),
  anomaly: z.number().nullable(),
  /** Below the threshold the person set. */
  uncertain: z.boolean(),
  /** Time run_classifier took in the worker (ms). */
  classifyMs: z.number().nonnegative(),
});
export type ModelVerdict = z.infer<typeof ModelVerdict>;

/** What catch mode was asked for on a live source. */
export const CatchRequest = z.object({
  /** What is happening now ("I am doing wave"): misses are saved under this label. */
  label: z.string().trim().min(1).max(256),
  category: z.enum(['training', 'testing', 'post-processing']).default('training'),
  marginMs: z.number().int().min(0).max(60_000).default(500),
  /** At most this many caught samples a minute (stream time). */
  perMinute: z.number().int().min(1).max(10_000).default(20),
  /** "Upload when saved": caught samples go into the upload queue as they are saved. */
  queue: z.boolean().default(false),
  /** Treat the label as background (noise, unknown): only windows sure of another label are misses. Default: by name. */
  background: z.boolean().optional(),
});
export type CatchRequest = z.infer<typeof CatchRequest>;

export const LiveModelRequest = z.object({
  sourceId: z.string().min(1),
  model: ModelName,
  /** A window starts every strideMs (default: a quarter window; a microphone on a continuous build: its slice). */
  strideMs: z.number().positive().max(600_000).nullable().optional(),
  /** Top score below this = "uncertain" (default 0.6). */
  threshold: z.number().min(0).max(1).optional(),
  catch: CatchRequest.nullable().optional(),
}).strict();
export type LiveModelRequest = z.infer<typeof LiveModelRequest>;

/** A model running on a live source, as the live view shows it. */
export const LiveModelStatus = z.object({
  sourceId: z.string(),
  model: z.string(),
  modelHash: z.string(),
  state: z.enum(['running', 'stopped', 'failed']),
  labels: z.array(z.string()),
  windowMs: z.number(),
  strideMs: z.number(),
  threshold: z.number(),
  /**
   * The source's rate the verdicts' times count rows at: a verdict's endMs × rateHz / 1000 is its
   * row index on the stream (a batch's firstIndex counts the same rows), however long ago it started.
   */
  rateHz: z.number().positive(),
  /** Said once when it started: axes mapped in order, resampled, continuous mode. */
  notes: z.array(z.string()),
  windows: z.number().int().nonnegative(),
  /** Windows left out because the model was still busy with an earlier one. */
  skipped: z.number().int().nonnegative(),
  /** Catch mode, when on: how many samples it saved and in words ("caught 7: 5 said idle, 2 uncertain"). */
  catching: z.object({ label: z.string(), caught: z.number().int().nonnegative(), summary: z.string(), capped: z.number().int().nonnegative(), lastSampleId: z.string().nullable() }).nullable(),
  /** Why it stopped by itself (the model failed twice, the source ended). */
  error: z.string().nullable(),
});
export type LiveModelStatus = z.infer<typeof LiveModelStatus>;

/** Verdicts of one live model since the last batch (sent a few times a second at most). */
export const ModelVerdictBatch = z.object({
  sourceId: z.string(),
  model: z.string(),
  verdicts: z.array(ModelVerdict),
});
export type ModelVerdictBatch = z.infer<typeof ModelVerdictBatch>;

/**
 * Why a sample could not be classified locally (CoreError details), for callers that group them
 * (the bulk action): shorter than one window; axes or rate the model cannot take (the sample's own
 * axis count and rate, for the words); the model failed on a window.
 */
export type LocalRefusal =
  | { reason: 'too-short'; lengthMs: number; windowMs: number }
  | { reason: 'misfit'; axes: number; rateHz: number }
  | { reason: 'model-failed'; code: number };
