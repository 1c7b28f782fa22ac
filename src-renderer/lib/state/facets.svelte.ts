import type { SampleFacets } from '../../../src-main/core/contract/contract.js';
import type { Api } from '../api/client.js';
import { answer } from '../api/answer.js';
import type { SampleIndex } from './sample-index.svelte.js';
import { Rerun } from './rerun.js';
import { Settle } from './settle.js';

/**
 * Quiet time before asking again: an import of thousands of files, or an upload round, changes
 * samples for a while; the menus' counts can wait until it settles rather than be asked per batch.
 */
const SETTLE_MS = 600;

/**
 * What the data folder holds, for the filter menus: labels, categories, findings, sources,
 * sessions, what the model says, the date range, each with its count (samples.facets).
 */
export class FacetsState {
  data = $state.raw<SampleFacets | null>(null);
  /** Why they could not be fetched; the menus keep the last answer meanwhile. */
  error = $state<string | null>(null);
  readonly #settle = new Settle(SETTLE_MS, () => void this.refresh());
  readonly #rerun = new Rerun(() => this.#load());

  constructor(
    private readonly api: Api,
    private readonly index: SampleIndex,
  ) {}

  /** One request at a time; a change meanwhile asks once more after it, never in parallel. */
  refresh(): Promise<void> {
    this.#settle.cancel();
    return this.#rerun.run();
  }

  async #load(): Promise<void> {
    const r = await answer(() => this.api.call('samples.facets', {}));
    if (r.ok) this.data = r.value;
    this.error = r.error;
  }

  /** Samples changing (or the connection back): refresh once things settle. Returns the cleanup for an $effect. */
  subscribe(): () => void {
    return this.#settle.follow((changed) => this.index.onChange(changed));
  }
}
