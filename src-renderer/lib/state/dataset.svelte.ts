import type { MethodOutput } from '../../../src-main/core/contract/contract.js';
import type { Api } from '../api/client.js';
import { answer } from '../api/answer.js';
import type { SampleIndex } from './sample-index.svelte.js';
import { Settle } from './settle.js';

export type DatasetAnswer = MethodOutput<'dataset.summary'>;

/** Quiet time before asking again: an upload of hundreds of files asks the platform once, after. */
const SETTLE_MS = 1000;

/** Class balance: the platform's counts per label × category, next to what is still only here. */
export class DatasetState {
  data = $state.raw<DatasetAnswer | null>(null);
  loading = $state(false);
  error = $state<string | null>(null);
  readonly #settle = new Settle(SETTLE_MS, () => void this.refresh());

  constructor(
    private readonly api: Api,
    private readonly index: SampleIndex,
  ) {}

  async refresh(): Promise<void> {
    this.#settle.cancel();
    this.loading = true;
    const r = await answer(() => this.api.call('dataset.summary', {}));
    if (r.ok) this.data = r.value;
    this.error = r.error;
    this.loading = false;
  }

  /** Samples changing (uploads finishing, relabels) or new settings: refresh once things settle. */
  subscribe(): () => void {
    // The sample index also says when the connection came back (events were lost meanwhile).
    return this.#settle.follow((changed) => this.index.onChange(changed), (changed) => this.api.on('settings.changed', changed));
  }
}
