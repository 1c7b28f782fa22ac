// How a sample's data-quality report reads in the table: one short badge, the full messages on demand.
import type { QualityCode, Sample } from '../../../src-main/core/contract/contract.js';

/** Finding names as a list of them needs them (the filter menu): every one told apart. */
export const FINDING_NAMES: Record<QualityCode, string> = {
  unreadable: 'Unreadable',
  'too-short': 'Too short',
  'lost-readings': 'Lost readings',
  'rejected-lines': 'Bad lines',
  'irregular-timing': 'Irregular timing',
  'timestamp-gaps': 'Timestamp gaps',
  'rate-mismatch': 'Rate mismatch',
  'flat-axis': 'Flat line',
  'flat-stretch': 'Flat stretch',
  clipping: 'Clipping',
  silence: 'Silent',
  dropouts: 'Dropouts',
};

/** The table's badge words: shorter, so both kinds of gap read "Gaps" (the menu needs FINDING_NAMES). */
const TITLES: Record<QualityCode, string> = { ...FINDING_NAMES, 'lost-readings': 'Gaps', 'timestamp-gaps': 'Gaps' };

export interface QualityBadgeText {
  tone: 'error' | 'warning' | 'ok' | 'unchecked';
  /** e.g. "Gaps", "Gaps +2" when there are more findings. */
  text: string;
  /** Every message, one per line: the tooltip and the expanded text. */
  details: string[];
}

export function qualityBadge(s: Pick<Sample, 'quality' | 'flagged'>): QualityBadgeText {
  if (s.quality === null) return { tone: 'unchecked', text: '–', details: ['Not checked (added from the command line, or before quality checks existed).'] };
  const findings = s.quality.findings;
  if (findings.length === 0) return { tone: 'ok', text: 'OK', details: ['No problems found.'] };
  // The report lists errors first, so the first finding names the worst problem.
  const first = TITLES[findings[0]!.code];
  return { tone: s.flagged ?? 'warning', text: findings.length > 1 ? `${first} +${findings.length - 1}` : first, details: findings.map((f) => f.message) };
}

/** What the bulk "Queue for upload" says about samples the quality setting kept back. */
export function heldSentence(held: number): string {
  if (held === 0) return '';
  return ` ${held} held back by data-quality checks: open their badge and choose "Upload anyway" to send them regardless, or change the rule in Settings → Data quality.`;
}
