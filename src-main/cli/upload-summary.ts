import type { Sample } from '../core/contract.js';
import type { ImportOutcome } from '../core/upload/import-files.js';

export interface UploadSummary {
  line: string;
  details: string[];
  allOnPlatform: boolean;
}

/**
 * Counts each file of this run once. "already present" = the platform had it before this run
 * (a duplicate rejection, or confirmed by an earlier run); only a platform answer counts as uploaded.
 */
export function summarize(outcomes: Array<ImportOutcome & { uploadedBefore?: boolean }>, pausedReason: string | null): UploadSummary {
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
    const s: Sample = o.sample;
    const where = o.path;
    if (s.state === 'uploaded') {
      if (o.uploadedBefore || s.note?.startsWith('Already on the platform')) present++;
      else uploaded++;
    } else if (s.state === 'rejected') {
      rejected++;
      details.push(`rejected ${where}: ${s.error ?? 'no reason given'}`);
    } else {
      failed++;
      details.push(`failed ${where}: ${s.error ?? pausedReason ?? `still ${s.state}`}`);
    }
  }
  return { line: `${uploaded} uploaded, ${present} already present, ${rejected} rejected, ${failed} failed`, details, allOnPlatform: rejected === 0 && failed === 0 };
}
