import type { Sample, SampleState } from '../../../src-main/core/contract/contract.js';

const STATE_WORDS: Record<SampleState, string> = {
  local: 'local',
  queued: 'queued',
  uploading: 'uploading',
  uploaded: 'uploaded',
  failed: 'upload failed',
  rejected: 'rejected',
};

/**
 * A row of the added-files list: the sample as it is now ("hum · testing · uploaded"), read from
 * the sample index each time it changes, never the words it had when the file was added.
 */
export function addedSampleText(s: Pick<Sample, 'label' | 'category' | 'state' | 'heldBack'>, known: boolean): string {
  const state = s.heldBack && s.state === 'local' ? 'held back' : STATE_WORDS[s.state];
  return `${known ? 'already added: ' : ''}${s.label ?? 'unlabeled'} · ${s.category} · ${state}`;
}

/** Said instead once the sample was deleted (here, in another window, or from the command line). */
export const DELETED_TEXT = 'deleted since';
