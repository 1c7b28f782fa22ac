import type { Sample } from '../core/contract/contract.js';
import type { BulkOutcome } from '../core/import/bulk-import.js';
import { onPlatformAdvice, onPlatformLine } from './upload-words.js';

export interface UploadSummary {
  line: string;
  details: string[];
  allOnPlatform: boolean;
  /** Files on the platform under other words than this run asked for (not sent again). */
  otherWords: number;
}

/** Where a file's sample stands after the run. */
export type Verdict = Pick<Sample, 'state' | 'note' | 'error'>;

/**
 * Counts each file of this run once. "uploaded" = the platform stored it for this run (`stored`,
 * from the queue's answers); "already present" = the platform had it otherwise: a duplicate
 * refusal, an earlier run, or another run or the app sending the same sample meanwhile.
 */
export function summarize(outcomes: BulkOutcome[], verdicts: ReadonlyMap<string, Verdict>, pausedReason: string | null, stored: ReadonlySet<string> = new Set()): UploadSummary {
  let uploaded = 0;
  let present = 0;
  let rejected = 0;
  let failed = 0;
  let otherWords = 0;
  let copies = 0;
  let elsewhere = 0;
  const details: string[] = [];
  for (const o of outcomes) {
    if (o.status === 'refused') {
      rejected++;
      details.push(`rejected ${o.path}: ${o.reason}`);
      continue;
    }
    const s = verdicts.get(o.id);
    const where = o.path;
    if (stored.has(o.id)) uploaded++;
    else if (s?.state === 'uploaded') {
      present++;
      if (o.onPlatform) {
        otherWords++;
        details.push(onPlatformLine(where, o.onPlatform));
      } else if (o.state !== 'uploaded' && s.note?.includes('Already on the platform')) copies++;
    } else if (s?.state === 'uploading') {
      // This run's queue settles its own requests before the summary: the mark is another process's.
      failed++;
      elsewhere++;
      details.push(`not confirmed ${where}: in flight elsewhere (see below)`);
    } else if (s?.state === 'rejected') {
      rejected++;
      details.push(`rejected ${where}: ${s.error ?? 'no reason given'}`);
    } else {
      failed++;
      // The reason uploads stopped is printed once above the summary, not once per file.
      const why = s?.error !== null && s?.error !== undefined && s.error !== pausedReason ? s.error : pausedReason !== null ? 'not sent: uploads stopped (see above)' : s ? `still ${s.state}` : 'its sample was deleted';
      details.push(`failed ${where}: ${why}`);
    }
  }
  if (otherWords > 0) details.push(onPlatformAdvice(otherWords));
  if (elsewhere > 0) {
    details.push(`${elsewhere === 1 ? 'This file is' : `These ${elsewhere} files are`} being sent by another Capture Desk process, or one that stopped while sending: run the same command again to send ${elsewhere === 1 ? 'it' : 'them'}.`);
  }
  if (copies > 0) {
    details.push(`${copies} ${copies === 1 ? 'file was' : 'files were'} already on the platform (it refused ${copies === 1 ? 'it as a copy' : 'them as copies'} of samples it had, sent by another upload): ` +
      'they keep the label and category they were first stored with there, which may not be this run\'s; change them on the platform if they differ.');
  }
  return { line: `${uploaded} uploaded, ${present} already present, ${rejected} rejected, ${failed} failed`, details, allOnPlatform: rejected === 0 && failed === 0, otherWords };
}
