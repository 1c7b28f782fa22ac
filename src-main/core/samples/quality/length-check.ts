import type { QualityFinding } from '../../contract/contract.js';
import { finding, formatMs } from './findings.js';

/**
 * Too short to hold one window of the model: the platform would skip it or the model learns from padding.
 * `stepMs` is one reading's (or audio frame's) duration: a take holds a whole number of readings,
 * round(length / interval) of them, so it may span up to half a reading less than asked and still
 * be the length asked for (a 500 ms take of a 100.3 Hz board is 50 readings, 498.5 ms).
 */
export function checkLength(lengthMs: number | null, minLengthMs: number, stepMs = 0): QualityFinding[] {
  if (minLengthMs <= 0 || lengthMs === null || lengthMs + stepMs / 2 >= minLengthMs) return [];
  return [finding('too-short', 'error', `Too short: ${formatMs(lengthMs)} recorded, the minimum is ${formatMs(minLengthMs)} (Settings → Data quality). Record it again for longer, or lower the minimum.`)];
}
