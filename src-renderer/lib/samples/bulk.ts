// Bulk actions on the selected samples. Each sends only the samples the action applies to and
// returns a sentence saying what happened, including what was left alone and why: a bulk action
// that silently skips rows leaves the user guessing.
import type { Category, Sample, SampleState } from '../../../src-main/core/contract.js';
import type { Api } from '../api/client.js';
import { errorText, plural } from '../format.js';
import { heldSentence } from './quality.js';

export interface BulkResult {
  text: string;
  /** Some samples could not be changed: show as an error, not as a note. */
  failed: boolean;
  /** Samples the quality setting held back: the note stays until the person acts on them. */
  held?: number;
}

/** States in which the core lets a sample be edited: not yet on the platform, not being sent. */
const EDITABLE: readonly SampleState[] = ['local', 'queued', 'failed', 'rejected'];

const ids = (list: Sample[]) => list.map((s) => s.id);
const having = (list: Sample[], states: readonly SampleState[]) => list.filter((s) => states.includes(s.state));

function skipped(n: number, why: string): string {
  return n > 0 ? ` ${plural(n, 'sample')} left alone: ${why}.` : '';
}

export async function relabel(api: Api, selected: Sample[], label: string | null): Promise<BulkResult> {
  const target = having(selected, EDITABLE);
  if (target.length > 0) await api.call('samples.update', { ids: ids(target), label });
  const what = label === null ? 'unlabeled' : `labelled "${label}"`;
  return { text: `${plural(target.length, 'sample')} ${what}.${skipped(selected.length - target.length, 'already uploaded or uploading; relabel those on the platform')}`, failed: false };
}

/** Not-yet-uploaded samples change here; uploaded ones are moved on the platform, one by one. */
export async function setCategory(api: Api, selected: Sample[], category: Category): Promise<BulkResult> {
  const local = having(selected, EDITABLE);
  if (local.length > 0) await api.call('samples.update', { ids: ids(local), category });
  const uploaded = having(selected, ['uploaded']);
  const errors: string[] = [];
  let moved = 0;
  if (category !== 'split') {
    for (const s of uploaded) {
      try {
        await api.call('samples.move', { id: s.id, newCategory: category });
        moved++;
      } catch (err) {
        errors.push(errorText(err));
      }
    }
  }
  const parts = [`${plural(local.length + moved, 'sample')} set to ${category}${moved > 0 ? ` (${moved} moved on the platform)` : ''}.`];
  if (category === 'split' && uploaded.length > 0) parts.push(`${plural(uploaded.length, 'uploaded sample')} left alone: the platform splits only while uploading.`);
  if (errors.length > 0) parts.push(`${plural(errors.length, 'sample')} could not be moved: ${errors[0]}`);
  parts.push(skipped(having(selected, ['uploading']).length, 'being uploaded right now').trim());
  return { text: parts.filter(Boolean).join(' '), failed: errors.length > 0 };
}

/** Local samples go into the queue; failed and rejected ones are retried (= queued again). */
export async function enqueue(api: Api, selected: Sample[], states: readonly SampleState[]): Promise<BulkResult> {
  const target = having(selected, states);
  if (target.length === 0) return { text: 'None of the selected samples can be queued.', failed: false };
  const { queued, held } = await api.call('queue.enqueue', { ids: ids(target) });
  return { text: `${plural(queued, 'sample')} queued for upload.${heldSentence(held)}`, failed: false, held };
}

export async function dequeue(api: Api, selected: Sample[]): Promise<BulkResult> {
  const target = having(selected, ['queued']);
  if (target.length === 0) return { text: 'None of the selected samples is waiting in the queue.', failed: false };
  const { dequeued } = await api.call('queue.dequeue', { ids: ids(target) });
  return { text: `${plural(dequeued, 'sample')} taken out of the queue.${skipped(target.length - dequeued, 'already on its way')}`, failed: false };
}

export async function remove(api: Api, selected: Sample[]): Promise<BulkResult> {
  const target = selected.filter((s) => s.state !== 'uploading');
  if (target.length > 0) await api.call('samples.delete', { ids: ids(target) });
  return { text: `${plural(target.length, 'sample')} deleted.${skipped(selected.length - target.length, 'being uploaded right now')}`, failed: false };
}

export function countIn(selected: Sample[], states: readonly SampleState[]): number {
  return having(selected, states).length;
}
