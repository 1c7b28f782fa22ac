import type { CollectSummary } from '../../../src-main/core/contract/contract.js';
import type { Api } from '../api/client.js';
import { errorText } from '../format.js';
import type { SampleIndex } from './sample-index.svelte.js';
import { Settle } from './settle.js';

/** Which takes the summary counts: those of this run of the app, or every take this data folder knows. */
export type CollectScope = 'run' | 'all';

/** Quiet time before asking again: a burst of uploads and classifications asks once. */
const SETTLE_MS = 800;

/**
 * "Collect more of": per label the takes collected and what the model made of their windows, the
 * labels it confuses most and those to collect more of. Asked again when samples change (a kept
 * classification is announced as a change of its sample).
 */
export class CollectSummaryState {
  data = $state.raw<CollectSummary | null>(null);
  scope = $state<CollectScope>('run');
  loading = $state(false);
  error = $state<string | null>(null);
  readonly #settle = new Settle(SETTLE_MS, () => void this.refresh());
  #asked = 0;

  constructor(
    private readonly api: Api,
    private readonly index: SampleIndex,
  ) {}

  setScope(scope: CollectScope): void {
    this.scope = scope;
    void this.refresh();
  }

  async refresh(): Promise<void> {
    this.#settle.cancel();
    const asked = ++this.#asked;
    this.loading = true;
    try {
      // No `since`: the core counts from this run's start; null: every take.
      const data = await this.api.call('samples.collectSummary', this.scope === 'all' ? { since: null } : {});
      if (asked !== this.#asked) return;
      this.data = data;
      this.error = null;
    } catch (err) {
      if (asked === this.#asked) this.error = errorText(err);
    } finally {
      if (asked === this.#asked) this.loading = false;
    }
  }

  /** Follows the sample index while shown; returns the cleanup for an $effect. */
  subscribe(): () => void {
    return this.#settle.follow((changed) => this.index.onChange(changed));
  }
}
