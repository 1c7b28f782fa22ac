/**
 * Shapes of "the project's model, run on this computer": an exported WebAssembly impulse added to
 * the data folder, described once, and its verdicts on live windows. Imported by contract.ts, so
 * nothing here may import Node.
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
