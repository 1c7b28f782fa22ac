import type { QualityFinding } from '../../contract/contract.js';
import { finding, formatMs } from './findings.js';

/** Too short to hold one window of the model: the platform would skip it or the model learns from padding. */
export function checkLength(lengthMs: number | null, minLengthMs: number): QualityFinding[] {
  if (minLengthMs <= 0 || lengthMs === null || lengthMs >= minLengthMs) return [];
  return [finding('too-short', 'error', `Too short: ${formatMs(lengthMs)} recorded, the minimum is ${formatMs(minLengthMs)} (Settings → Data quality). Record it again for longer, or lower the minimum.`)];
}
