import type { Series } from './classify-data.js';

/**
 * The emulated project's impulse: a deterministic "model" so tests can predict every window's
 * label and confidence. Each learn block measures one feature per window and scores each label
 * by how close the feature is to that label's typical value (on a log scale).
 */
export interface EmulatedLearnBlock {
  id: number;
  name: string;
  title: string;
  /**
   * The declared learnBlock.type (edge-impulse-api LearnBlockType); default keras. A
   * keras-regression block answers the feature itself per window as `{value}` (labels unused),
   * and the impulse's minimumConfidenceRating is then an absolute error, as declared.
   */
  type?: 'keras' | 'keras-regression' | 'anomaly';
  /**
   * rms: the RMS of the window's readings around their mean, over all axes (audio: -1…1 scale);
   * dominant-hz: the frequency of the first axis, from its zero crossings around the mean.
   */
  feature: 'rms' | 'dominant-hz';
  /** Each label's typical feature value. */
  labels: Record<string, number>;
  /** Adds an "anomaly" entry per window: the log-distance to the nearest label's value. */
  anomaly?: boolean;
}

export interface EmulatedImpulse {
  id: number;
  windowSizeMs: number;
  windowIncreaseMs: number;
  /** The data the impulse's input block takes: sensor files (JSON/CBOR), WAV audio, or both. */
  accepts: Array<'sensor' | 'audio'>;
  /** Sensor data: the number of axes the impulse was designed for; null = any. */
  axes: number | null;
  minimumConfidenceRating: number;
  learnBlocks: EmulatedLearnBlock[];
  /** Returned as the response's warning when set. */
  warning?: string;
}

export const DEFAULT_IMPULSE: EmulatedImpulse = {
  id: 1,
  windowSizeMs: 1000,
  windowIncreaseMs: 500,
  accepts: ['sensor', 'audio'],
  axes: null,
  minimumConfidenceRating: 0.6,
  learnBlocks: [{ id: 3, name: 'NN Classifier', title: 'Classification', feature: 'rms', labels: { idle: 0.05, wave: 1.5, shake: 6 } }],
};

/** How fast a label's score falls off with the feature's log-distance from its value. */
const SHARPNESS = 4;

/**
 * The windows the impulse slides over a sample of `lengthMs`: window i starts at
 * i × increase and ends at start + size, clipped to the sample. Windows are taken while they fit;
 * a sample shorter than one window gets one window, clipped.
 */
export function slidingWindows(lengthMs: number, sizeMs: number, increaseMs: number): Array<{ startMs: number; endMs: number }> {
  const n = lengthMs <= sizeMs ? 1 : Math.floor((lengthMs - sizeMs) / increaseMs + 1e-9) + 1;
  return Array.from({ length: n }, (_, i) => ({ startMs: i * increaseMs, endMs: Math.min(i * increaseMs + sizeMs, lengthMs) }));
}

export function featureOf(series: Series, feature: EmulatedLearnBlock['feature'], from: number, to: number): number {
  const n = to - from;
  if (n <= 0) return 0;
  if (feature === 'rms') {
    let sum = 0;
    for (let a = 0; a < series.axes.length; a++) {
      const c = series.column(a);
      let mean = 0;
      for (let i = from; i < to; i++) mean += c[i]!;
      mean /= n;
      for (let i = from; i < to; i++) sum += (c[i]! - mean) ** 2;
    }
    return Math.sqrt(sum / (n * series.axes.length));
  }
  const c = series.column(0);
  let mean = 0;
  for (let i = from; i < to; i++) mean += c[i]!;
  mean /= n;
  let crossings = 0;
  for (let i = from + 1; i < to; i++) if ((c[i - 1]! - mean < 0) !== (c[i]! - mean < 0)) crossings++;
  return crossings / 2 / ((n * series.intervalMs) / 1000);
}

const logDistance = (v: number, center: number): number => Math.abs(Math.log(v + 1e-9) - Math.log(center));

/**
 * Scores of one window: softmax of -SHARPNESS × log-distance. float32 rounds to 6 decimals; int8
 * gives what a quantized output tensor gives, multiples of 1/256.
 */
export function scoresFor(value: number, block: EmulatedLearnBlock, variant: string): Record<string, number> {
  if (block.type === 'keras-regression') return { value: Math.round(value * 1e4) / 1e4 };
  const entries = Object.entries(block.labels);
  const weights = entries.map(([, c]) => Math.exp(-SHARPNESS * logDistance(value, c)));
  const total = weights.reduce((a, b) => a + b, 0) || 1;
  const round = variant === 'int8' ? (x: number) => Math.round(x * 256) / 256 : (x: number) => Math.round(x * 1e6) / 1e6;
  const out: Record<string, number> = {};
  entries.forEach(([label], i) => (out[label] = round(weights[i]! / total)));
  if (block.anomaly) out['anomaly'] = Math.round(Math.min(...entries.map(([, c]) => logDistance(value, c))) * 1e4) / 1e4;
  return out;
}

/** One result object per window for each learn block, as the platform's `result[]`. */
export function classifySeries(series: Series, impulse: EmulatedImpulse, variant: string): Array<Array<Record<string, number>>> {
  const lengthMs = series.rows * series.intervalMs;
  const windows = slidingWindows(lengthMs, impulse.windowSizeMs, impulse.windowIncreaseMs);
  const rowAt = (ms: number): number => Math.min(series.rows, Math.round(ms / series.intervalMs));
  return impulse.learnBlocks.map((block) =>
    windows.map((w) => scoresFor(featureOf(series, block.feature, rowAt(w.startMs), rowAt(w.endMs)), block, variant)),
  );
}

/** Why the impulse cannot take this sample, or null when it can. */
export function mismatch(series: Series | null, impulse: EmulatedImpulse): string | null {
  const takes = impulse.accepts.map((k) => (k === 'audio' ? 'audio (WAV)' : impulse.axes === null ? 'sensor data' : `sensor data with ${impulse.axes} axes`)).join(' or ');
  if (!series) return `The impulse cannot classify this sample: it takes ${takes}, and this sample is not a time series`;
  if (!impulse.accepts.includes(series.kind)) {
    return `The impulse cannot classify this sample: it takes ${takes}, and this sample is ${series.kind === 'audio' ? 'audio' : 'sensor data'}`;
  }
  if (series.kind === 'sensor' && impulse.axes !== null && series.axes.length !== impulse.axes) {
    return `The impulse cannot classify this sample: it takes ${takes}, and this sample has ${series.axes.length}`;
  }
  return null;
}
