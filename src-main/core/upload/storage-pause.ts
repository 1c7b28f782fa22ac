import type { StorageProblem } from '../fs/storage-error.js';

/**
 * Why the queue paused when the data folder refuses writes, and what to do, in words for the user.
 * `resumeHint` ends it: the app's queue resumes by itself, a command line run is run again.
 */
export function storagePauseMessage(problem: StorageProblem, dir: string, code: string, resumeHint: string): string {
  const safe = 'Your samples are safe: no file was deleted, and no sample is marked uploaded unless the platform confirmed it (one it received but that could not be marked is sent again later, and the platform keeps it once).';
  return problem === 'full'
    ? `The disk holding the data folder ${dir} is full (${code}), so the upload queue cannot record its progress and uploads are paused. ${safe} Free some space on that disk; ${resumeHint}`
    : `The data folder ${dir} cannot be written (${code}), so the upload queue cannot record its progress and uploads are paused. ${safe} Make the folder writable again; ${resumeHint}`;
}
