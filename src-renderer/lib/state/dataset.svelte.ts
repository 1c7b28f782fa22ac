import type { MethodOutput } from '../../../src-main/core/contract.js';
import type { Api } from '../api/client.js';
import { onReconnect } from '../api/reconnect.js';
import { errorText } from '../format.js';

export type DatasetAnswer = MethodOutput<'dataset.summary'>;

/** Quiet time before asking again: an upload of hundreds of files asks the platform once, after. */
const SETTLE_MS = 1000;

/** Class balance: the platform's counts per label × category, next to what is still only here. */
export class DatasetState {
  data = $state.raw<DatasetAnswer | null>(null);
  loading = $state(false);
  error = $state<string | null>(null);
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly api: Api) {}

  async refresh(): Promise<void> {
    this.#cancel();
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
    const soon = () => {
      this.#cancel();
      this.#timer = setTimeout(() => void this.refresh(), SETTLE_MS);
    };
    const offSamples = this.api.on('samples.changed', soon);
    const offSettings = this.api.on('settings.changed', soon);
    const offReconnect = onReconnect(this.api, soon);
    return () => {
      offSamples();
      offSettings();
      offReconnect();
      this.#cancel();
    };
  }

  #cancel(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }
}
