import type { Sample } from '../core/contract/contract.js';
import type { BulkOutcome } from '../core/import/bulk-import.js';

export interface UploadSummary {
  line: string;
  details: string[];
  allOnPlatform: boolean;
}

/** Where a file's sample stands after the run. */
export type Verdict = Pick<Sample, 'state' | 'note' | 'error'>;

/**
 * Counts each file of this run once. "already present" = the platform had it before this run
 * (a duplicate rejection, or confirmed by an earlier run); only a platform answer counts as uploaded.
 */
export function summarize(outcomes: BulkOutcome[], verdicts: ReadonlyMap<string, Verdict>, pausedReason: string | null): UploadSummary {
  let uploaded = 0;
  let present = 0;
  let rejected = 0;
  let failed = 0;
  const details: string[] = [];
  for (const o of outcomes) {
    if (o.status === 'refused') {
      rejected++;
      details.push(`rejected ${o.path}: ${o.reason}`);
      continue;
    }
    const s = verdicts.get(o.id);
    const where = o.path;
    if (s?.state === 'uploaded') {
      if (o.state === 'uploaded' || s.note?.startsWith('Already on the platform')) present++;
      else uploaded++;
    } else if (s?.state === 'rejected') {
      rejected++;
      details.push(`rejected ${where}: ${s.error ?? 'no reason given'}`);
    } else {
      failed++;
      details.push(`failed ${where}: ${s?.error ?? pausedReason ?? (s ? `still ${s.state}` : 'its sample was deleted')}`);
    }
  }
  return { line: `${uploaded} uploaded, ${present} already present, ${rejected} rejected, ${failed} failed`, details, allOnPlatform: rejected === 0 && failed === 0 };
}
