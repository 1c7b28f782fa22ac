import { FLOOR_DBFS, SILENCE_DBFS, type LevelReport } from '../core/audio/levels.js';

/** What the CLI says about a recording's level once it is done. */
export class LevelSummary {
  peak = 0;
  frames = 0;
  #energy = 0;
  clippedFrames = 0;
  silentReports = 0;
  reports = 0;

  add(r: LevelReport): void {
    this.reports++;
    this.frames += r.frames;
    this.#energy += r.frames * 10 ** (r.rmsDbfs / 10);
    this.peak = Math.max(this.peak, r.peak);
    this.clippedFrames += Math.round(r.clippedFraction * r.frames);
    if (r.silent) this.silentReports++;
  }

  get rmsDbfs(): number {
    if (this.frames === 0) return FLOOR_DBFS;
    const e = this.#energy / this.frames;
    return e > 0 ? Math.max(FLOOR_DBFS, 10 * Math.log10(e)) : FLOOR_DBFS;
  }
}

export function formatLevelSummary(s: LevelSummary): string {
  const db = (x: number) => (x <= FLOOR_DBFS ? '-inf' : x.toFixed(1));
  const peakDb = s.peak > 0 ? 20 * Math.log10(s.peak) : FLOOR_DBFS;
  let line = `Level: peak ${db(peakDb)} dBFS, RMS ${db(s.rmsDbfs)} dBFS`;
  if (s.clippedFrames > 0) line += `\nWarning: ${s.clippedFrames} samples clipped; lower the input gain or move the microphone away.`;
  if (s.reports > 0 && (s.silentReports > s.reports / 2 || s.rmsDbfs < SILENCE_DBFS)) line += '\nWarning: mostly silence; check that the microphone is not muted and is the one you meant.';
  return line;
}
