import type { QualityFinding } from '../../contract/contract.js';
import { finding, percent } from './findings.js';
import { describeGaps, type TakeGap } from './take-gaps.js';

/** Over this share of readings missing, the time axis of the sample is wrong enough to mislead a model. */
export const LOST_ERROR_FRACTION = 0.01;

/**
 * Readings the serial capture counted but could not keep: lines the reader estimated as dropped
 * from their arrival times (`dropped_lines`) and lines it refused as unreadable
 * (`rejected_lines`). Either way the recorded rows are closer together in time than the board
 * sampled them.
 */
export function checkCounters(extra: Record<string, unknown>): QualityFinding[] {
  const rows = num(extra['rows']);
  const dropped = num(extra['dropped_lines']) ?? 0;
  const rejected = num(extra['rejected_lines']) ?? 0;
  const out: QualityFinding[] = [];
  const gaps = knownGaps(extra['gaps']);
  if (gaps && dropped > 0) {
    // A board that numbers its samples (Nordic's data forwarder): the losses are known, not estimated.
    const fraction = rows ? dropped / (rows + dropped) : 1;
    const severity = fraction > LOST_ERROR_FRACTION ? 'error' : 'warning';
    out.push(finding('lost-readings', severity,
      `Gaps: ${describeGaps(gaps)} (${percent(fraction)}, known exactly from the board's sequence numbers), so the data has holes in time. ` +
      (gaps.some((g) => g.device > 0)
        ? 'The board dropped samples itself (its queue overflowed): lower the rate or the channel count, or use a faster link (921600 baud), then record again.'
        : 'They were lost on the way: check the cable or the baud rate (921600 for high rates), then record again.')));
  } else if (dropped > 0) {
    const fraction = rows ? dropped / (rows + dropped) : 1;
    const severity = fraction > LOST_ERROR_FRACTION ? 'error' : 'warning';
    out.push(finding('lost-readings', severity,
      `Gaps: about ${dropped} reading${dropped === 1 ? '' : 's'} (${percent(fraction)}) never arrived while recording, so the data has holes in time. ` +
      'Check the cable and that the board does not block (long delays, slow sensor reads) between prints, then record again.'));
  }
  if (rejected > 0) {
    const fraction = rows ? rejected / (rows + rejected) : 1;
    const severity = fraction > LOST_ERROR_FRACTION ? 'error' : 'warning';
    out.push(finding('rejected-lines', severity,
      `${rejected} line${rejected === 1 ? ' was' : 's were'} unreadable and left out (${percent(fraction)} of the readings). ` +
      'Look at the bad lines in the live view (debug prints, wrong number of values, a wrong baud rate) and fix the sketch.'));
  }
  out.push(...checkJitter(num(extra['jitter_ms']), num(extra['interval_ms'])));
  return out;
}

/** RMS distance of arrivals from a steady clock, in sample periods, beyond which timing is suspect. */
export const JITTER_WARNING_PERIODS = 2;
export const JITTER_ERROR_PERIODS = 5;

/**
 * The reader fits a steady clock to when lines arrive; `jitter_ms` is how far arrivals sit from
 * it (RMS). USB bursts put that at a period or so. Several periods means the board stalls in
 * bursts the reader could not count as lost lines (it may then also have settled on a lower
 * rate), or the link is unreliable: the sample's time axis cannot be trusted either way.
 */
function checkJitter(jitterMs: number | null, intervalMs: number | null): QualityFinding[] {
  if (jitterMs === null || !intervalMs) return [];
  const periods = jitterMs / intervalMs;
  if (periods <= JITTER_WARNING_PERIODS || jitterMs <= 20) return [];
  const severity = periods > JITTER_ERROR_PERIODS && jitterMs > 50 ? 'error' : 'warning';
  return [finding('irregular-timing', severity,
    `Irregular timing: readings arrived ${jitterMs.toFixed(0)} ms away from a steady ${(1000 / intervalMs).toFixed(1)} Hz on average (${periods.toFixed(1)} sample periods), so when each reading was taken is uncertain. ` +
    'The board stalls between prints (blocking sensor reads, delays) or the link drops out; fix the loop timing, then record again.')];
}

function knownGaps(v: unknown): TakeGap[] | null {
  if (!Array.isArray(v)) return null;
  const ok = v.every((g) => typeof g === 'object' && g !== null && typeof g.at_s === 'number' && typeof g.count === 'number' && typeof g.device === 'number');
  return ok ? (v as TakeGap[]) : null;
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}
