import type { QualityReport, QualitySeverity, Settings } from '../../contract/contract.js';
import { inspectSampleFile, type QualityFile, type QualitySubject } from './check-sample.js';
import { worstSeverity } from './findings.js';

export type HoldPolicy = Settings['qualityHold'];

export interface QualityVerdict {
  report: QualityReport;
  flagged: QualitySeverity | null;
  /** Kept out of the upload queue it was about to join. */
  held: boolean;
  /** The length the file itself shows; fills the sample's length when its source did not give one (imports). */
  lengthMs?: number | null;
}

/** Whether the hold setting keeps a sample flagged this way out of the queue. */
export function holds(policy: HoldPolicy, flagged: QualitySeverity | null): boolean {
  if (flagged === null || policy === 'off') return false;
  return policy === 'all' || flagged === 'error';
}

/** What the sample store asks before it indexes a new sample. */
export interface QualityGate {
  inspect(file: QualityFile, subject: QualitySubject & { queue?: boolean | undefined }): Promise<QualityVerdict>;
  /** The hold setting now (read at each decision, so a change applies to the next capture). */
  policy(): HoldPolicy;
}

export function qualityGate(settings: () => Pick<Settings, 'qualityHold' | 'qualityMinLengthMs'>): QualityGate {
  return {
    policy: () => settings().qualityHold,
    async inspect(file, subject) {
      const s = settings();
      const { report, lengthMs } = await inspectSampleFile(file, subject, { minLengthMs: s.qualityMinLengthMs });
      const flagged = worstSeverity(report.findings);
      return { report, flagged, held: subject.queue === true && holds(s.qualityHold, flagged), lengthMs };
    },
  };
}
