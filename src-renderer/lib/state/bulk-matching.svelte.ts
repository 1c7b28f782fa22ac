import type { BulkResult, SampleQueryFilter } from '../../../src-main/core/contract/contract.js';
import type { Api } from '../api/client.js';
import { confirmText, doneText, isStaleCount, type BulkAction, type BulkOutcome, type ChosenAction } from '../samples/bulk.js';
import type { JobRunner } from './jobs.svelte.js';

/** What the dry run found for the action the person chose, waiting for Confirm. */
export interface PendingBulk {
  action: ChosenAction;
  filter: SampleQueryFilter;
  preview: BulkResult;
  /** The confirmation's words: how many change, how many stay and why. */
  text: string;
}

/**
 * An action on every sample a find matches ("all 12,345 matching"): a dry run first, whose count
 * the confirmation states; Confirm sends that count as expectTotal, so if samples were added,
 * changed or deleted meanwhile the core changes nothing and says so (`stale`), and "Look again"
 * runs the dry run anew. An export and a classify with a local model run as jobs with progress
 * and Cancel (`exportJob`, `classifyJob`).
 */
export class MatchingBulk {
  pending = $state.raw<PendingBulk | null>(null);
  /** The count changed since the dry run: the core's words (both numbers); nothing was changed. */
  stale = $state<string | null>(null);
  busy = $state(false);

  constructor(
    private readonly api: Api,
    private readonly exportJob: JobRunner,
    private readonly classifyJob: JobRunner | null = null,
  ) {}

  /** The dry run: what `action` would change among the samples `filter` matches, and why the rest stays. */
  async ask(action: ChosenAction, filter: SampleQueryFilter): Promise<void> {
    this.busy = true;
    try {
      const preview = await this.api.call('samples.bulk', { filter, action: withJob(action, 'dry-run'), dryRun: true });
      this.pending = { action, filter, preview, text: confirmText(action, preview) };
      this.stale = null;
    } finally {
      this.busy = false;
    }
  }

  /** The confirmation's count changed on the core: ask again with the same action and find. */
  lookAgain(): Promise<void> {
    const p = this.pending;
    return p ? this.ask(p.action, p.filter) : Promise.resolve();
  }

  /**
   * Runs the pending action on exactly as many samples as the confirmation said, and resolves with
   * what happened (a cancelled export says so). Null when nothing ran: nothing was pending, or the
   * count changed (see `stale`). Other failures throw and leave the confirmation up to try again.
   */
  async confirm(): Promise<BulkOutcome | null> {
    const p = this.pending;
    if (!p || this.busy) return null;
    this.busy = true;
    try {
      const input = { filter: p.filter, expectTotal: p.preview.matched };
      const runner = p.action.type === 'export' ? this.exportJob : p.action.type === 'classify' ? this.classifyJob : null;
      if (p.action.type === 'classify' && !runner) throw new Error('Classifying is not offered here.');
      const r = runner
        ? await runner.run((jobId) => this.api.call('samples.bulk', { ...input, action: withJob(p.action, jobId) }))
        : await this.api.call('samples.bulk', { ...input, action: withJob(p.action, '') });
      this.pending = null;
      if (r) return doneText(p.action, r);
      return { text: p.action.type === 'classify' ? (runner?.cancelled ?? 'Classifying cancelled; the samples classified before keep their results.') : 'Export cancelled; the files it had written were removed.', failed: false };
    } catch (err) {
      if (!isStaleCount(err)) throw err;
      this.stale = err instanceof Error ? err.message : String(err);
      return null;
    } finally {
      this.busy = false;
    }
  }

  cancel(): void {
    this.pending = null;
    this.stale = null;
  }
}

function withJob(a: ChosenAction, jobId: string): BulkAction {
  return a.type === 'export' || a.type === 'classify' ? { ...a, jobId } : a;
}
