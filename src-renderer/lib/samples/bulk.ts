// Bulk actions, on the ticked rows of a page or on every sample the find matches: each goes to the
// core as one samples.bulk call (one change event, so the table refetches once), and each comes
// back as a sentence saying what happened, including what was left alone and why: a bulk action
// that silently skips rows leaves the user guessing.
import type { BulkResult, Category, MethodInput, Sample, SampleQueryFilter, SampleState } from '../../../src-main/core/contract/contract.js';
import type { Api } from '../api/client.js';
import { errorText } from '../format.js';
import { heldSentence } from './quality.js';

export type BulkAction = MethodInput<'samples.bulk'>['action'];
/** An action as the person chose it; an export or a classify gets its job id only when it runs. */
export type JobAction = Extract<BulkAction, { type: 'export' | 'classify' }>;
export type ChosenAction = Exclude<BulkAction, JobAction> | Omit<Extract<BulkAction, { type: 'export' }>, 'jobId'> | Omit<Extract<BulkAction, { type: 'classify' }>, 'jobId'>;

export interface BulkOutcome {
  text: string;
  /** Some samples could not be changed: show as an error, not as a note. */
  failed: boolean;
  /** Samples the quality setting held back: the note stays until the person acts on them. */
  held?: number;
}

/** "12,345 samples": counts of a whole data folder read better with separators. */
export function count(n: number, one = 'sample', many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

/** Samples the quality hold kept out of the queue: the one reason that needs a decision (and a way to the flagged samples). */
export const heldIn = (r: BulkResult): number => r.unchanged.filter((u) => u.code === 'held-back').reduce((a, u) => a + u.count, 0);

/**
 * Why samples stay as they are, from the core's reasons: "345 stay as they are: already on the
 * platform: change their label there." before, "345 samples left alone: …" after ('' when none).
 */
export function leftAlone(unchanged: BulkResult['unchanged'], when: 'ask' | 'done'): string {
  if (unchanged.length === 0) return '';
  const total = unchanged.reduce((a, u) => a + u.count, 0);
  const head = when === 'done' ? `${count(total)} left alone` : `${total.toLocaleString('en-US')} ${total === 1 ? 'stays as it is' : 'stay as they are'}`;
  if (unchanged.length === 1) return `${head}: ${unchanged[0]!.reason}.`;
  return `${head}: ${unchanged.map((u) => `${u.count.toLocaleString('en-US')} ${u.reason}`).join('; ')}.`;
}

const labelWords = (label: string | null) => (label === null ? 'unlabeled' : `labelled "${label}"`);

const strideWords = (strideMs: number | null | undefined) => (strideMs ? `, a window every ${strideMs} ms` : '');

/** The confirmation's question for an action on `n` samples. */
export function question(a: ChosenAction, n: number): string {
  switch (a.type) {
    case 'label':
      return a.label === null ? `Make ${count(n)} unlabeled?` : `Set label "${a.label}" on ${count(n)}?`;
    case 'category':
      return `Set category ${a.category} on ${count(n)}?`;
    case 'queue':
      return a.force ? `Queue ${count(n)} for upload, held back ones too ("Upload anyway")?` : `Queue ${count(n)} for upload?`;
    case 'dequeue':
      return `Take ${count(n)} out of the upload queue?`;
    case 'delete':
      return `Delete ${count(n)}? Files captured here are removed; imported files stay where they were, and samples already on the platform stay there.`;
    case 'export':
      return `Export ${count(n)} to ${a.outDir ?? 'exports/ in the data folder'}${a.csv ? ', sensor data as CSV' : ''}?`;
    case 'classify':
      return `Classify ${count(n)} on this computer with model "${a.model}"${strideWords(a.strideMs)}? Each result is kept as it is made.`;
  }
}

/** What a dry run says before the person confirms: the question, and what stays as it is and why. */
export function confirmText(a: ChosenAction, preview: BulkResult): string {
  if (preview.changed === 0) {
    const none = preview.matched === 0 ? 'No samples match any more.' : `None of the ${count(preview.matched)} would change.`;
    return [none, leftAlone(preview.unchanged, 'ask')].filter(Boolean).join(' ');
  }
  return [question(a, preview.changed), leftAlone(preview.unchanged, 'ask')].filter(Boolean).join(' ');
}

/** What happened, once done. The quality hold reads as everywhere else (heldSentence). */
export function doneText(a: ChosenAction, r: BulkResult): BulkOutcome {
  const held = a.type === 'queue' ? heldIn(r) : 0;
  const rest = held ? r.unchanged.filter((u) => u.code !== 'held-back') : r.unchanged;
  const head = (() => {
    switch (a.type) {
      case 'label':
        return `${count(r.changed)} ${labelWords(a.label)}.`;
      case 'category':
        return `${count(r.changed)} set to ${a.category}.`;
      case 'queue':
        return `${count(r.changed)} queued for upload.${heldSentence(held)}`;
      case 'dequeue':
        return `${count(r.changed)} taken out of the queue.`;
      case 'delete':
        return `${count(r.changed)} deleted.`;
      case 'export':
        return r.export ? `Exported ${count(r.export.files, 'file')} with info.labels to ${r.export.dir}.` : 'Nothing was exported.';
      case 'classify':
        return `${count(r.changed)} classified on this computer with model "${a.model}".`;
    }
  })();
  // Counted but neither changed nor given a reason: changed by someone else between count and change.
  const said = r.changed + r.unchanged.reduce((s, u) => s + u.count, 0);
  const meanwhile = r.matched > said ? ` ${count(r.matched - said)} left alone: changed while this ran.` : '';
  const tail = leftAlone(rest, 'done');
  return { text: `${head}${tail ? ` ${tail}` : ''}${meanwhile}`, failed: false, ...(held ? { held } : {}) };
}

/**
 * The count changed between the dry run and the confirm (samples.bulk's expectTotal refused it):
 * the core's message says both numbers. Anything else the call refused is an ordinary failure.
 */
export function isStaleCount(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'InvalidArguments' && /you confirmed/.test(errorText(err));
}

// ---------- the ticked rows of a page ----------

const byIds = (list: readonly Sample[]): SampleQueryFilter => ({ ids: list.map((s) => s.id) });
const having = (list: readonly Sample[], states: readonly SampleState[]) => list.filter((s) => states.includes(s.state));

export function countIn(selected: readonly Sample[], states: readonly SampleState[]): number {
  return having(selected, states).length;
}

/** One samples.bulk on these rows (no dry run: the rows are on screen, ticked). */
async function onRows(api: Api, rows: readonly Sample[], action: Exclude<BulkAction, { type: 'export' }>): Promise<BulkOutcome> {
  return doneText(action, await api.call('samples.bulk', { filter: byIds(rows), action }));
}

export const relabel = (api: Api, selected: readonly Sample[], label: string | null) => onRows(api, selected, { type: 'label', label });

export async function remove(api: Api, selected: readonly Sample[]): Promise<BulkOutcome> {
  return onRows(api, selected, { type: 'delete' });
}

/** `states`: local ones for "Queue for upload", failed and rejected ones for "Retry". */
export async function enqueue(api: Api, selected: readonly Sample[], states: readonly SampleState[]): Promise<BulkOutcome> {
  const target = having(selected, states);
  if (target.length === 0) return { text: 'None of the selected samples can be queued.', failed: false };
  return onRows(api, target, { type: 'queue' });
}

export async function dequeue(api: Api, selected: readonly Sample[]): Promise<BulkOutcome> {
  const target = having(selected, ['queued']);
  if (target.length === 0) return { text: 'None of the selected samples is waiting in the queue.', failed: false };
  return onRows(api, target, { type: 'dequeue' });
}

/**
 * Samples not yet on the platform change here in one samples.bulk; uploaded ones are moved on the
 * platform, one samples.move each (samples.bulk leaves them: a move is a platform call per sample,
 * fine for the rows of a page, not for a whole data folder).
 */
export async function setCategory(api: Api, selected: readonly Sample[], category: Category): Promise<BulkOutcome> {
  const uploaded = having(selected, ['uploaded']);
  const here = selected.filter((s) => s.state !== 'uploaded');
  const r = here.length > 0 ? await api.call('samples.bulk', { filter: byIds(here), action: { type: 'category', category } }) : null;
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
  const parts = [`${count((r?.changed ?? 0) + moved)} set to ${category}${moved > 0 ? ` (${moved} moved on the platform)` : ''}.`];
  if (category === 'split' && uploaded.length > 0) parts.push(`${count(uploaded.length, 'uploaded sample')} left alone: the platform splits only while uploading.`);
  if (errors.length > 0) parts.push(`${count(errors.length)} could not be moved: ${errors[0]}`);
  if (r) parts.push(leftAlone(r.unchanged, 'done'));
  return { text: parts.filter(Boolean).join(' '), failed: errors.length > 0 };
}

/** The page's classify with a local model: the same samples.bulk classify as all matching, on these rows. */
export function classifyRows(api: Api, rows: readonly Sample[], jobId: string, action: Omit<Extract<BulkAction, { type: 'classify' }>, 'jobId'>): Promise<BulkResult> {
  return api.call('samples.bulk', { filter: byIds(rows), action: { ...action, jobId } });
}

/** The page's export: the same samples.bulk export as all matching, on these rows. */
export function exportRows(api: Api, rows: readonly Sample[], jobId: string, opts: { outDir?: string; csv: boolean }): Promise<BulkResult> {
  return api.call('samples.bulk', { filter: byIds(rows), action: { type: 'export', jobId, csv: opts.csv, ...(opts.outDir ? { outDir: opts.outDir } : {}) } });
}
