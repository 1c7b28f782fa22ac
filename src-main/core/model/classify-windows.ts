import type { Classification, ClassifiedWindow, Sample } from '../contract/contract.js';
import type { LocalRefusal, ModelEntry } from '../contract/model-schema.js';
import { summarize } from '../classify/classify-summary.js';
import { CoreError } from '../errors.js';
import type { Decoded } from '../review/decoded-audio.js';
import { checkFit, toVerdict } from './live-model.js';
import type { WindowResult } from './model-runner.js';

// A decoded sample cut into windows, classified and turned into the result kept with it, wherever
// the windows are classified: through a session (classify-sample.ts) or beside the module in a
// model worker (bulk work). Nothing here reads files or loads zod: a worker loads it at each start.

/** The variant a local result is kept under: one per model build, beside the platform's int8/float32. */
export const localVariant = (hash: string): string => `local:${hash.slice(0, 16)}`;

/** At most this many windows a round trip to the worker, and at most this many floats (4 MB). */
const BATCH_WINDOWS = 16;
const BATCH_FLOATS = 1 << 20;

export interface LocalClassifyOptions {
  strideMs?: number | null;
  threshold?: number;
  /** Windows handed to `run` at once (16 unless said): a batch is a round trip to a worker; beside the module, one, so progress sees every window. */
  batchWindows?: number;
  /** Called after each window (progress bars); return false to stop (the result is then not kept). */
  progress?: (done: number, total: number) => boolean | void;
}

export type SampleNamed = Pick<Sample, 'id' | 'name' | 'label'> & { sha256?: string };

/** Classifies `count` whole windows of `windowFloats` each, end to end in `values`, in order (a session in the core; the module itself inside a worker). */
export type RunWindows = (values: Float32Array, windowFloats: number, count: number) => Promise<readonly WindowAnswer[]> | readonly WindowAnswer[];

/** What a window's classification answers (a worker's result or the module's own). */
export type WindowAnswer = Pick<WindowResult, 'code' | 'scores' | 'anomaly'> & { ms?: number };

/**
 * classifyDecoded with the windows classified by `run`: the same fit checks, windows, verdicts and
 * result wherever it runs (model-worker.ts runs it beside the module for bulk work, so a sample is
 * read, decoded and windowed in the worker and only its result crosses threads).
 */
export async function classifyDecodedWith(entry: ModelEntry, run: RunWindows, sample: SampleNamed, decoded: Decoded, o: LocalClassifyOptions = {}): Promise<Classification> {
  const d = entry.description;
  const rateHz = 1000 / decoded.intervalMs;
  const threshold = o.threshold ?? 0.6;
  const axisNames = decoded.axes.map((a) => a.name);
  let fit: ReturnType<typeof checkFit>;
  try {
    fit = checkFit(entry, { name: `"${sample.name}"`, axisNames, rateHz, audio: decoded.kind === 'audio' }, o.strideMs ?? null);
  } catch (err) {
    // The model's own problems (axes never given, a stride that does not fit) are not the sample's.
    if (!(err instanceof CoreError) || d.axes === null || (d.axes === axisNames.length && rateHz >= d.frequencyHz / 4)) throw err;
    throw new CoreError(err.code, err.message, { reason: 'misfit', axes: axisNames.length, rateHz } satisfies LocalRefusal);
  }
  // Offline every window is whole: continuous slices are a live-stream economy only.
  const strideMs = fit.continuous ? (o.strideMs ?? d.windowMs / 4) : fit.strideMs;
  const axes = d.axes!;
  const lengthMs = decoded.rows * decoded.intervalMs;
  if (lengthMs + 1e-6 < d.windowMs) {
    throw new CoreError('InvalidArguments', `"${sample.name}" is ${Math.round(lengthMs)} ms long, shorter than one window of model "${entry.name}" (${d.windowMs} ms): nothing to classify.`, { reason: 'too-short', lengthMs, windowMs: d.windowMs } satisfies LocalRefusal);
  }
  const count = Math.floor((lengthMs - d.windowMs) / strideMs + 1e-9) + 1;
  const windows: ClassifiedWindow[] = [];
  const floats = d.frameSampleCount * axes;
  // Windows go to the worker a batch at a time (one round trip each); a batch is small enough for
  // Cancel to be felt within a few windows, and its buffer is reused.
  const batch = Math.max(1, Math.min(count, o.batchWindows ?? BATCH_WINDOWS, Math.floor(BATCH_FLOATS / floats)));
  const values = new Float32Array(floats * batch);
  for (let first = 0; first < count; first += batch) {
    const n = Math.min(batch, count - first);
    for (let k = 0; k < n; k++) fillWindow(values.subarray(k * floats, (k + 1) * floats), decoded, (first + k) * strideMs, d.frameSampleCount, d.frequencyHz, axes);
    const results = await run(values, floats, n);
    for (const [k, r] of results.entries()) {
      const i = first + k;
      const startMs = i * strideMs;
      if (r.code !== 0) throw new CoreError('InvalidArguments', `Model "${entry.name}" failed on the window at ${Math.round(startMs)} ms of "${sample.name}" (run_classifier returned ${r.code}${r.code === -5 ? ': its signal processing failed' : ''}).`, { reason: 'model-failed', code: r.code } satisfies LocalRefusal);
      const v = toVerdict({ ...r, ms: r.ms ?? 0, refilling: false }, { index: i, startMs, endMs: startMs + d.windowMs }, threshold, d.hasAnomaly);
      windows.push({ index: i, startMs: v.startMs, endMs: v.endMs, label: v.label, confidence: v.confidence, scores: v.scores, anomaly: v.anomaly, uncertain: v.uncertain });
      if (o.progress?.(i + 1, count) === false) throw new CoreError('Cancelled', `Classifying "${sample.name}" was stopped; nothing was kept.`);
    }
  }
  return localResult(entry, sample, windows, { lengthMs, strideMs, threshold });
}

export function localResult(entry: ModelEntry, sample: Pick<Sample, 'id' | 'label'> & { sha256?: string }, windows: ClassifiedWindow[], o: { lengthMs: number; strideMs: number; threshold: number }): Classification {
  const d = entry.description;
  return {
    sampleId: sample.id,
    platformSampleId: null,
    impulseId: null,
    variant: localVariant(entry.hash),
    local: { model: entry.name, hash: entry.hash, threshold: o.threshold, ...(sample.sha256 === undefined ? {} : { sampleSha256: sample.sha256 }) },
    classifiedAt: new Date().toISOString(),
    lengthMs: o.lengthMs,
    windowSizeMs: d.windowMs,
    windowIncreaseMs: o.strideMs,
    alreadyInDatabase: false,
    warning: null,
    blocks: [{
      id: 0,
      name: entry.name,
      title: `on this computer: ${entry.name}`,
      labels: d.labels,
      minimumConfidenceRating: o.threshold,
      hasAnomaly: d.hasAnomaly,
      windows,
      summary: summarize(windows, sample.label, d.labels, o.threshold),
    }],
  };
}

/**
 * Writes one window of `rows` model-rate rows starting at `startMs`, interleaved by row, from the
 * decoded columns (audio stays at int16 scale, as the export wants). Equal rates (within 1 %) copy
 * rows; others interpolate linearly between the two nearest source rows.
 */
function fillWindow(out: Float32Array, dec: Decoded, startMs: number, rows: number, modelHz: number, axes: number): void {
  const srcHz = 1000 / dec.intervalMs;
  const same = Math.abs(srcHz / modelHz - 1) <= 0.01 + 1e-9;
  const first = (startMs / 1000) * srcHz;
  if (same) {
    // Rows copied as they are (the common case, and a keyword window is 16,000 of them): a column
    // at a time, one set() for a single axis.
    const start = Math.round(first);
    const last = dec.rows - 1;
    for (let a = 0; a < axes; a++) {
      const col = dec.columns[a]!;
      if (axes === 1 && start + rows - 1 <= last) {
        out.set(col.subarray(start, start + rows));
        continue;
      }
      for (let r = 0; r < rows; r++) out[r * axes + a] = col[Math.min(last, start + r)]!;
    }
    return;
  }
  for (let r = 0; r < rows; r++) {
    const pos = same ? Math.round(first) + r : first + (r * srcHz) / modelHz;
    const i0 = Math.min(dec.rows - 1, Math.floor(pos));
    const i1 = Math.min(dec.rows - 1, i0 + 1);
    const f = same ? 0 : pos - Math.floor(pos);
    for (let a = 0; a < axes; a++) {
      const col = dec.columns[a]!;
      const v0 = col[i0]!;
      out[r * axes + a] = f === 0 ? v0 : v0 + (col[i1]! - v0) * f;
    }
  }
}

