/**
 * What the live view needs from the audio, computed in the core so the renderer only draws:
 * level (RMS and peak, dBFS), clipping and silence warnings, and a min/max waveform decimated to
 * a fixed number of columns per second. Reports are batched to at most `maxReportsPerSecond`
 * (≤ 60) and timed by frames, not by the wall clock, so they are reproducible.
 */

/** Quieter than this for `silenceAfterMs` is reported as silence (a muted or dead microphone). */
export const SILENCE_DBFS = -60;
/** dBFS shown for digital silence (log of zero). */
export const FLOOR_DBFS = -120;

export interface BlockLevel {
  frames: number;
  /** RMS relative to full scale, in dB (a full-scale sine is -3 dBFS). */
  rmsDbfs: number;
  /** Largest |sample| / full scale, 0…1. */
  peak: number;
  /** Samples at ±full scale / frames. */
  clippedFraction: number;
}

export function measureBlock(pcm: Int16Array): BlockLevel {
  let sum = 0;
  let peak = 0;
  let clipped = 0;
  for (let i = 0; i < pcm.length; i++) {
    const s = pcm[i]!;
    sum += s * s;
    const a = s < 0 ? -s : s;
    if (a > peak) peak = a;
    if (a >= 32767) clipped++;
  }
  const n = pcm.length;
  return {
    frames: n,
    rmsDbfs: n === 0 ? FLOOR_DBFS : toDb(Math.sqrt(sum / n) / 32768),
    peak: peak / 32768,
    clippedFraction: n === 0 ? 0 : clipped / n,
  };
}

export interface LevelReport extends BlockLevel {
  /** Index (since capture start) of the first frame this report covers. */
  firstFrame: number;
  peakDbfs: number;
  /** Something clipped within the last `clipHoldMs`. */
  clipping: boolean;
  /** Below SILENCE_DBFS for at least `silenceAfterMs`. */
  silent: boolean;
  /** Completed waveform columns as [min, max] pairs (-1…1), `columnsPerSecond` of them per second. */
  waveform: Float32Array<ArrayBuffer>;
  columnsPerSecond: number;
}

export interface LevelMonitorOptions {
  sampleRate: number;
  maxReportsPerSecond?: number;
  columnsPerSecond?: number;
  clipHoldMs?: number;
  silenceAfterMs?: number;
}

export class LevelMonitor {
  readonly sampleRate: number;
  readonly columnsPerSecond: number;
  readonly #reportFrames: number;
  readonly #columnFrames: number;
  readonly #clipHoldFrames: number;
  readonly #silenceFrames: number;
  // current report window
  #frames = 0;
  #sum = 0;
  #peak = 0;
  #clipped = 0;
  #first = 0;
  #total = 0;
  // warnings
  #sinceClip = Infinity;
  #quietFor = 0;
  // waveform
  #colMin = Infinity;
  #colMax = -Infinity;
  #colFrames = 0;
  #columns: number[] = [];

  constructor(o: LevelMonitorOptions) {
    this.sampleRate = o.sampleRate;
    const perSecond = Math.min(60, o.maxReportsPerSecond ?? 30);
    this.#reportFrames = Math.max(1, Math.round(o.sampleRate / perSecond));
    this.columnsPerSecond = o.columnsPerSecond ?? 200;
    this.#columnFrames = Math.max(1, Math.round(o.sampleRate / this.columnsPerSecond));
    this.#clipHoldFrames = Math.round(((o.clipHoldMs ?? 1000) * o.sampleRate) / 1000);
    this.#silenceFrames = Math.round(((o.silenceAfterMs ?? 2000) * o.sampleRate) / 1000);
  }

  /** Takes a batch; returns the reports that became due (usually zero or one). */
  push(pcm: Int16Array): LevelReport[] {
    const reports: LevelReport[] = [];
    let i = 0;
    while (i < pcm.length) {
      const take = Math.min(pcm.length - i, this.#reportFrames - this.#frames);
      this.#accumulate(pcm, i, i + take);
      i += take;
      if (this.#frames >= this.#reportFrames) reports.push(this.#report());
    }
    // Only the newest report matters to a meter; older ones that became due in one big batch
    // still carry their waveform columns, so merge them.
    return reports.length <= 1 ? reports : [mergeReports(reports)];
  }

  #accumulate(pcm: Int16Array, from: number, to: number): void {
    let sum = 0;
    let peak = this.#peak;
    let clipped = 0;
    for (let k = from; k < to; k++) {
      const s = pcm[k]!;
      sum += s * s;
      const a = s < 0 ? -s : s;
      if (a > peak) peak = a;
      if (a >= 32767) clipped++;
      const f = s / 32768;
      if (f < this.#colMin) this.#colMin = f;
      if (f > this.#colMax) this.#colMax = f;
      if (++this.#colFrames === this.#columnFrames) {
        this.#columns.push(this.#colMin, this.#colMax);
        this.#colMin = Infinity;
        this.#colMax = -Infinity;
        this.#colFrames = 0;
      }
    }
    this.#sum += sum;
    this.#peak = peak;
    this.#clipped += clipped;
    this.#frames += to - from;
  }

  #report(): LevelReport {
    const n = this.#frames;
    const rmsDbfs = toDb(Math.sqrt(this.#sum / n) / 32768);
    this.#sinceClip = this.#clipped > 0 ? 0 : this.#sinceClip + n;
    this.#quietFor = rmsDbfs < SILENCE_DBFS ? this.#quietFor + n : 0;
    const r: LevelReport = {
      frames: n,
      firstFrame: this.#first,
      rmsDbfs,
      peak: this.#peak / 32768,
      peakDbfs: toDb(this.#peak / 32768),
      clippedFraction: this.#clipped / n,
      clipping: this.#sinceClip <= this.#clipHoldFrames,
      silent: this.#quietFor >= this.#silenceFrames,
      waveform: Float32Array.from(this.#columns),
      columnsPerSecond: this.columnsPerSecond,
    };
    this.#total += n;
    this.#first = this.#total;
    this.#frames = 0;
    this.#sum = 0;
    this.#peak = 0;
    this.#clipped = 0;
    this.#columns = [];
    return r;
  }
}

function mergeReports(rs: LevelReport[]): LevelReport {
  const last = rs[rs.length - 1]!;
  const frames = rs.reduce((a, r) => a + r.frames, 0);
  const energy = rs.reduce((a, r) => a + r.frames * 10 ** (r.rmsDbfs / 10), 0);
  const peak = Math.max(...rs.map((r) => r.peak));
  const waveform = new Float32Array(rs.reduce((a, r) => a + r.waveform.length, 0));
  let o = 0;
  for (const r of rs) {
    waveform.set(r.waveform, o);
    o += r.waveform.length;
  }
  return {
    ...last,
    frames,
    firstFrame: rs[0]!.firstFrame,
    rmsDbfs: toDb(Math.sqrt(energy / frames)),
    peak,
    peakDbfs: toDb(peak),
    clippedFraction: rs.reduce((a, r) => a + r.clippedFraction * r.frames, 0) / frames,
    clipping: rs.some((r) => r.clipping),
    waveform,
  };
}

function toDb(ratio: number): number {
  return ratio > 0 ? Math.max(FLOOR_DBFS, 20 * Math.log10(ratio)) : FLOOR_DBFS;
}
