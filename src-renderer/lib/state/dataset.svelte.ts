import type { MethodOutput } from '../../../src-main/core/contract/contract.js';
import type { Api } from '../api/client.js';
import { errorText } from '../format.js';
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
    try {
      this.data = await this.api.call('dataset.summary', {});
      this.error = null;
    } catch (err) {
      this.error = errorText(err);
    } finally {
      this.loading = false;
    }
  }

  /** Samples changing (uploads finishing, relabels) or new settings: refresh once things settle. */
  subscribe(): () => void {
    const soon = () => this.#settle.soon();
    // The sample index also says when the connection came back (events were lost meanwhile).
    const offSamples = this.index.onChange(soon);
    const offSettings = this.api.on('settings.changed', soon);
    return () => {
      offSamples();
      offSettings();
      this.#settle.cancel();
    };
  }
}
