/**
 * How much is happening in each short frame of a sample: the one curve event detection works on.
 * Audio: mean power after a high-pass that takes out mains hum and DC (full scale = 1).
 * Sensors: deviation of every axis from its own slow-moving baseline (so gravity, or any steady
 * offset, counts for nothing), each axis in units of its own noise so a gesture on any axis
 * counts, summed over the axes.
 */
export interface Activity {
  power: Float32Array;
  /** Rows per frame (the last frame may hold fewer). */
  frameRows: number;
  rows: number;
  intervalMs: number;
  kind: 'audio' | 'sensor';
}

export interface ActivityInput {
  kind: 'audio' | 'sensor';
  columns: ArrayLike<number>[];
  /** Shown value = stored value × scale. */
  scale: number;
  intervalMs: number;
  rows: number;
}

/** Frames this short follow a word's edges closely and keep an hour to a few hundred thousand frames. */
export const FRAME_MS = 10;
/** Sensor frames average several readings: one reading per frame makes the noise floor too jumpy to threshold. */
export const SENSOR_FRAME_MS = 50;
/** Below speech, above 50/60 Hz mains and its first harmonic's worst leakage. */
const HIGH_PASS_HZ = 150;
/** A sensor axis's baseline: long enough to sit under a gesture, short enough to follow a slow tilt. */
const BASELINE_MS = 2000;

export function activity(d: ActivityInput): Activity {
  const frameRows = Math.max(1, Math.round((d.kind === 'audio' ? FRAME_MS : SENSOR_FRAME_MS) / d.intervalMs));
  const frames = Math.ceil(d.rows / frameRows);
  const power = new Float32Array(frames);
  if (d.kind === 'audio') for (const col of d.columns) addAudioPower(power, col, d.scale, d.rows, frameRows, 1000 / d.intervalMs);
  else for (const col of d.columns) addSensorPower(power, col, d.rows, frameRows, d.intervalMs);
  return { power, frameRows, rows: d.rows, intervalMs: d.intervalMs, kind: d.kind };
}

/**
 * Energy needs no more than 8 kHz of the signal: faster audio is read every `step`-th sample (what
 * lies above 4 kHz folds down but still counts as energy), which keeps an hour of 48 kHz as quick
 * to analyse as an hour of 8 kHz.
 */
const ANALYSIS_RATE = 8000;

function addAudioPower(power: Float32Array, col: ArrayLike<number>, scale: number, rows: number, frameRows: number, sampleRate: number): void {
  const step = Math.max(1, Math.floor(sampleRate / ANALYSIS_RATE));
  // RBJ biquad high-pass (Butterworth Q) at the rate actually read, transposed direct form II.
  const rate = sampleRate / step;
  let b0 = 1, b1 = 0, b2 = 0, a1 = 0, a2 = 0;
  if (rate > 4 * HIGH_PASS_HZ) {
    const w0 = (2 * Math.PI * HIGH_PASS_HZ) / rate;
    const alpha = Math.sin(w0) / (2 * Math.SQRT1_2);
    const cos = Math.cos(w0);
    const a0 = 1 + alpha;
    b0 = (1 + cos) / 2 / a0;
    b1 = -(1 + cos) / a0;
    b2 = b0;
    a1 = (-2 * cos) / a0;
    a2 = (1 - alpha) / a0;
  }
  let z1 = 0;
  let z2 = 0;
  for (let f = 0, at = 0; at < rows; f++) {
    const end = Math.min(rows, at + frameRows);
    let acc = 0;
    let n = 0;
    // Rows are read on one grid across frames (i continues where the last frame's stopped).
    let i = at + ((step - (at % step)) % step);
    for (; i < end; i += step, n++) {
      const x = col[i]! * scale;
      const y = b0 * x + z1;
      z1 = b1 * x - a1 * y + z2;
      z2 = b2 * x - a2 * y;
      acc += y * y;
    }
    if (n > 0) power[f] = power[f]! + acc / n;
    at = end;
  }
}

function addSensorPower(power: Float32Array, raw: ArrayLike<number>, rows: number, frameRows: number, intervalMs: number): void {
  const col = median3(raw, rows);
  const prefix = new Float64Array(rows + 1);
  for (let i = 0; i < rows; i++) prefix[i + 1] = prefix[i]! + col[i]!;
  const half = Math.max(1, Math.round(BASELINE_MS / intervalMs / 2));
  // Deviation from the centred moving mean, written over the filtered copy (no longer needed).
  const dev = col;
  for (let i = 0; i < rows; i++) {
    const a = i > half ? i - half : 0;
    const b = i + half + 1 < rows ? i + half + 1 : rows;
    dev[i] = dev[i]! - (prefix[b]! - prefix[a]!) / (b - a);
  }
  const scale = noiseScale(dev);
  const inv = 1 / (scale * scale);
  for (let f = 0, at = 0; at < rows; f++) {
    const end = Math.min(rows, at + frameRows);
    let acc = 0;
    for (let i = at; i < end; i++) acc += dev[i]! * dev[i]!;
    power[f] = power[f]! + (acc * inv) / (end - at);
    at = end;
  }
}

/**
 * Median absolute deviation of an axis (from a strided subsample: an hour at 100 Hz needs no more).
 * An axis with no noise at all (synthetic, or coarsely quantised) is measured against its own peak
 * instead, so it neither divides by zero nor drowns the other axes.
 */
function noiseScale(dev: Float64Array): number {
  const rows = dev.length;
  const step = Math.max(1, Math.floor(rows / 50_000));
  const sample = new Float64Array(Math.ceil(rows / step));
  let peak = 0;
  for (let i = 0, k = 0; i < rows; i += step, k++) {
    const v = Math.abs(dev[i]!);
    sample[k] = v;
    if (v > peak) peak = v;
  }
  sample.sort();
  const mad = sample[Math.floor(sample.length / 2)]!;
  if (mad > 0) return mad;
  return peak > 0 ? peak * 1e-3 : 1;
}

/**
 * A glitch in one reading (a bit flip, a dropped byte) is no gesture: a median of three removes
 * it, and leaves any movement spanning more than one reading as it was.
 */
function median3(x: ArrayLike<number>, rows: number): Float64Array {
  const out = new Float64Array(rows);
  for (let i = 0; i < rows; i++) {
    const a = x[Math.max(0, i - 1)]!;
    const b = x[i]!;
    const c = x[Math.min(rows - 1, i + 1)]!;
    out[i] = a > b ? (b > c ? b : a > c ? c : a) : a > c ? a : b > c ? c : b;
  }
  return out;
}
