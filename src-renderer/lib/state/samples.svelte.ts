import type { Category, Sample, SampleQueryFilter, SampleSortKey } from '../../../src-main/core/contract/contract.js';
import type { Api } from '../api/client.js';
import { errorText } from '../format.js';
import { emptyFind, FIRST_DIR, fromQuery, STATE_FILTERS, toFilter, toQuery, type SampleFind, type StateFilterId } from '../samples/find.js';
import type { SampleIndex } from './sample-index.svelte.js';
import { Rerun } from './rerun.js';
import { cellShown } from '../models/test-words.js';
import { CellMemory } from '../samples/cell-memory.js';
import { Selection } from './selection.svelte.js';

/** More rows than this are paged: a table of thousands of rows is slow and unreadable anyway. */
export const PAGE_SIZE = 500;

/** The state buttons above the table; kept under their old names for the views that use them. */
export const FILTERS = STATE_FILTERS;
export type FilterId = StateFilterId;

/**
 * One page of the samples a find matches (search, filters, sort; see lib/samples/find.ts), asked of
 * the core's index (samples.query) and refetched whenever the core says samples changed.
 */
export class SamplesState {
  list = $state.raw<Sample[]>([]);
  /** The find `list` answers (`find` runs ahead of it while a new page is on its way). */
  listFind = $state.raw<SampleFind | null>(null);
  /** How many samples match the find in all (not just this page). */
  total = $state(0);
  /** What is shown; change it through the methods below, which refetch. */
  find = $state.raw<SampleFind>(emptyFind());
  loaded = $state(false);
  loading = $state(false);
  /** Why the list could not be fetched; the last good page stays on screen meanwhile. */
  error = $state<string | null>(null);
  readonly selection = new Selection();
  selected = $derived(this.list.filter((s) => this.selection.has(s.id)));
  /** The query part of the address for the current find ('' when nothing is set). */
  query = $derived(toQuery(this.find));
  filter = $derived(this.find.state);
  offset = $derived(this.find.page * PAGE_SIZE);
  pageCount = $derived(Math.max(1, Math.ceil(this.total / PAGE_SIZE)));
  /**
   * "All N matching" is chosen: bulk actions go to every sample the find matches, not the ticked
   * rows. It holds while the selection it was made with does: ticking or unticking a row, or any
   * change of the find, ends it (the selection set is replaced on every change).
   */
  #allOf = $state.raw<ReadonlySet<string> | null>(null);
  allMatching = $derived(this.#allOf !== null && this.#allOf === this.selection.ids);
  readonly #rerun = new Rerun(() => this.#load());

  constructor(
    private readonly api: Api,
    private readonly index: SampleIndex,
    private readonly cells = new CellMemory(),
  ) {}

  /** The find the address holds (at start-up; the app writes `query` back as it changes). */
  restore(query: string): void {
    this.find = fromQuery(query, (key) => this.cells.recall(key));
  }

  /** The core's filter for what is shown (bulk actions on all matching send this). */
  matchingFilter(): SampleQueryFilter {
    return toFilter(this.find);
  }

  /**
   * Overlapping requests collapse into one follow-up fetch, so a burst of change events costs at
   * most two round trips and an older answer never overwrites a newer one.
   */
  refresh(): Promise<void> {
    return this.#rerun.run();
  }

  /**
   * Changes what is shown: back to the first page unless the change is a page, selection cleared
   * (a bulk action never reaches a sample the person no longer sees), then refetched.
   */
  update(change: Partial<SampleFind>): void {
    this.find = { ...this.find, page: 0, ...change };
    this.selection.clear();
    void this.refresh();
  }

  setFilter(id: FilterId): void {
    this.update({ state: id });
  }

  setText(text: string): void {
    if (text === this.find.text) return;
    this.update({ text });
  }

  /** Adds the value to a filter list, or takes it out when it is there (a chip's click). */
  toggle<K extends 'labels' | 'categories' | 'findings' | 'sources' | 'sessions' | 'modelSays'>(key: K, value: SampleFind[K][number]): void {
    const list = this.find[key] as ReadonlyArray<SampleFind[K][number]>;
    this.update({ [key]: list.includes(value) ? list.filter((v) => v !== value) : [...list, value] } as Partial<SampleFind>);
  }

  /**
   * A click in the class balance: exactly the samples of that count (a label, and a category when
   * a cell was clicked), whatever was filtered before; the sort is kept.
   */
  showBalance(label: string | null, category: Category | null): void {
    this.update({ ...emptyFind(), sort: this.find.sort, labels: [label], categories: category ? [category] : [] });
  }

  /** A category's total in the class balance: every sample in that category, whatever was filtered before. */
  showCategory(category: Category): void {
    this.update({ ...emptyFind(), sort: this.find.sort, categories: [category] });
  }

  /** A cell of a model test's matrix: exactly its samples, with a chip named like the cell, whatever was filtered before; the sort is kept. */
  showCell(text: string, ids: string[]): void {
    const shown = cellShown(text, ids);
    this.update({ ...emptyFind(), sort: this.find.sort, cell: this.cells.remember(shown.text, shown.ids) });
  }

  /** Every filter and the search off; the sort is kept. */
  clearFilters(): void {
    this.update({ ...emptyFind(), sort: this.find.sort });
  }

  /** A column header: that column in its first direction, or the other way round when it already sorts. */
  sortBy(by: SampleSortKey): void {
    const s = this.find.sort;
    this.update({ sort: s.by === by ? { by, dir: s.dir === 'asc' ? 'desc' : 'asc' } : { by, dir: FIRST_DIR[by] } });
  }

  /** 0-based page; beyond the last goes to the last. */
  goToPage(page: number): void {
    this.update({ page: Math.max(0, Math.min(Math.floor(page), this.pageCount - 1)) });
  }

  /** Kept for callers that think in rows: the page holding that row. */
  goTo(offset: number): void {
    this.goToPage(Math.floor(Math.max(0, offset) / PAGE_SIZE));
  }

  /** Ticks every row of the page and makes bulk actions reach all `total` matching samples. */
  selectAllMatching(): void {
    this.selection.selectAll(this.list.map((s) => s.id));
    this.#allOf = this.selection.ids;
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
    const find = this.find;
    try {
      const r = await this.api.call('samples.query', { filter: toFilter(find), sort: find.sort, limit: PAGE_SIZE, offset: find.page * PAGE_SIZE });
      if (find !== this.find) {
        // The find changed while this was on its way: its answer is not what is asked now.
        this.#rerun.again();
        return;
      }
      if (r.samples.length === 0 && find.page > 0 && r.total > 0) {
        // The rows of this page went away (or the address named a page past the end): show the last.
        this.find = { ...find, page: Math.floor((r.total - 1) / PAGE_SIZE) };
        this.#rerun.again();
        return;
      }
      const all = this.allMatching;
      this.list = r.samples;
      this.listFind = find;
      this.total = r.total;
      this.error = null;
      this.loaded = true;
      this.selection.keepOnly(r.samples.map((s) => s.id));
      // A refresh (samples added or changed anywhere) keeps "all matching": the find chose those
      // samples, not the rows that happen to be on the page; its confirmation stays up too.
      if (all) this.selectAllMatching();
    } catch (err) {
      this.error = errorText(err);
    } finally {
      this.loading = false;
    }
  }
}
