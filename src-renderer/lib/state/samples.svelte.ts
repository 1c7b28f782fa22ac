import type { Sample, SampleState } from '../../../src-main/core/contract.js';
import type { Api } from '../api/client.js';
import { errorText } from '../format.js';
import type { SampleIndex } from './sample-index.svelte.js';
import { Selection } from './selection.svelte.js';

/** More rows than this are paged: a table of thousands of rows is slow and unreadable anyway. */
export const PAGE_SIZE = 500;

export const FILTERS = [
  { id: 'all', label: 'All', states: null },
  { id: 'local', label: 'Local', states: ['local'] },
  { id: 'queue', label: 'In queue', states: ['queued', 'uploading'] },
  { id: 'uploaded', label: 'Uploaded', states: ['uploaded'] },
  { id: 'problems', label: 'Failed / rejected', states: ['failed', 'rejected'] },
  // Any state: what the data-quality checks found something in (held back or not).
  { id: 'flagged', label: 'Flagged', states: null, flagged: true },
] as const satisfies ReadonlyArray<{ id: string; label: string; states: readonly SampleState[] | null; flagged?: boolean }>;
export type FilterId = (typeof FILTERS)[number]['id'];

/** One page of the sample index, refetched whenever the core says samples changed. */
export class SamplesState {
  list = $state.raw<Sample[]>([]);
  total = $state(0);
  filter = $state<FilterId>('all');
  offset = $state(0);
  loaded = $state(false);
  loading = $state(false);
  /** Why the list could not be fetched; the last good page stays on screen meanwhile. */
  error = $state<string | null>(null);
  readonly selection = new Selection();
  selected = $derived(this.list.filter((s) => this.selection.has(s.id)));
  #inFlight: Promise<void> | null = null;
  #again = false;

  constructor(
    private readonly api: Api,
    private readonly index: SampleIndex,
  ) {}

  /**
   * Overlapping requests collapse into one follow-up fetch, so a burst of change events costs at
   * most two round trips and an older answer never overwrites a newer one.
   */
  refresh(): Promise<void> {
    if (this.#inFlight) {
      this.#again = true;
      return this.#inFlight;
    }
    const run = async () => {
      do {
        this.#again = false;
        await this.#load();
      } while (this.#again);
    };
    this.#inFlight = run().finally(() => (this.#inFlight = null));
    return this.#inFlight;
  }

  setFilter(id: FilterId): void {
    this.filter = id;
    this.offset = 0;
    this.selection.clear();
    void this.refresh();
  }

  goTo(offset: number): void {
    this.offset = Math.max(0, offset);
    this.selection.clear();
    void this.refresh();
  }

  /**
   * Keeps the page live while shown: the sample index says when samples changed (or the connection
   * came back); returns the cleanup for an $effect. Events are coalesced by the core.
   */
  subscribe(): () => void {
    return this.index.onChange(() => void this.refresh());
  }

  async #load(): Promise<void> {
    this.loading = true;
    try {
      const f = FILTERS.find((x) => x.id === this.filter);
      const states = f?.states;
      const flagged = f && 'flagged' in f ? { flagged: f.flagged } : {};
      const r = await this.api.call('samples.list', { ...(states ? { states: [...states] } : {}), ...flagged, limit: PAGE_SIZE, offset: this.offset });
      if (r.samples.length === 0 && this.offset > 0 && r.total > 0) {
        // The last rows of the last page went away: show the page that is now last.
        this.offset = Math.floor((r.total - 1) / PAGE_SIZE) * PAGE_SIZE;
        this.#again = true;
        return;
      }
      this.list = r.samples;
      this.total = r.total;
      this.error = null;
      this.loaded = true;
      this.selection.keepOnly(r.samples.map((s) => s.id));
    } catch (err) {
      this.error = errorText(err);
    } finally {
      this.loading = false;
    }
  }
}
