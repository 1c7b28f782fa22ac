import type { QualityFinding } from '../../contract/contract.js';
import { finding, percent } from './findings.js';

export const RATE_WARNING = 0.01;
export const RATE_ERROR = 0.05;

/**
 * The rate written in the file against the rate the reader measured on the wire. They differ
 * when a frequency was set by hand for a port (or a file declares a rate its device did not
 * keep): every event in the sample is then stretched or squeezed in time.
 */
export function checkRate(declaredHz: number | null, measuredHz: number | null): QualityFinding[] {
  return rateMismatch(declaredHz, measuredHz, (off, way) =>
    `Rate mismatch: the file says ${fmtHz(declaredHz!)} but the board sent ${fmtHz(measuredHz!)} (${off} off), so time in this sample is ${way}. ` +
    'Clear or correct the frequency set for this port, then record again.');
}

/**
 * A Nordic board's session info (`hz`, which the sample's time axis uses) against its own
 * timestamps (`ts`, ms when each sample was produced): a sensor set to another rate than the
 * firmware reports shows here, and every event in the sample is then stretched or squeezed.
 */
export function checkBoardClock(declaredHz: number | null, boardTsHz: number | null): QualityFinding[] {
  return rateMismatch(declaredHz, boardTsHz, (off, way) =>
    `Rate mismatch: the board's session info says ${fmtHz(declaredHz!)} but its own timestamps run at ${fmtHz(boardTsHz!)} (${off} off), so time in this sample is ${way}. ` +
    'The firmware reports one rate and its sensor samples at another: set the sensor\'s sampling rate to match (or the reported one), then record again.');
}

/** Over ±1 % a warning, over ±5 % an error, said in `words(how far off, stretched or squeezed)`. */
function rateMismatch(declaredHz: number | null, actualHz: number | null, words: (off: string, way: string) => string): QualityFinding[] {
  if (!declaredHz || !actualHz || !Number.isFinite(declaredHz) || !Number.isFinite(actualHz)) return [];
  const off = Math.abs(actualHz / declaredHz - 1);
  if (off <= RATE_WARNING) return [];
  return [finding('rate-mismatch', off > RATE_ERROR ? 'error' : 'warning', words(percent(off), actualHz > declaredHz ? 'stretched' : 'squeezed'))];
}

function fmtHz(hz: number): string {
  return `${hz >= 100 ? hz.toFixed(1) : hz.toFixed(2)} Hz`;
}
