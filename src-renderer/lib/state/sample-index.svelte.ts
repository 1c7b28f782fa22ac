import { SvelteMap, SvelteSet } from 'svelte/reactivity';
import type { Sample } from '../../../src-main/core/contract/contract.js';
import type { Api } from '../api/client.js';
import { onReconnect } from '../api/reconnect.js';

/** How many ids one samples.list asks for (the contract's limit is MAX_IDS, 5000). */
const CHUNK = 500;

/** What changed: these ids, or null when anything may have (the connection came back). */
export type SampleChange = readonly string[] | null;

/** Changes noted while a call that returns samples runs (SampleIndex.watch). */
export interface ChangeWatch {
  /** Stops noting (holding with it stops it too); more than once is fine. */
  stop(): void;
}

/**
 * The renderer's one owner of sample data. It alone listens to the core's `samples.changed` (and
 * to reconnects, which lose events); every view that shows samples learns of changes from it:
 *
 * - views that show samples by id (the added-files list, the sample view) `hold` them, and read the
 *   current record with `get`: the index asks the core again for held samples each time they change,
 *   and says `isGone` once one is deleted;
 * - views that page or count (the samples table, the class balance) refetch in `onChange`.
 *
 * No view keeps its own copy of a sample, so none can show an old label, category or state.
 */
export class SampleIndex {
  readonly #records = new SvelteMap<string, Sample>();
  readonly #gone = new SvelteSet<string>();
  readonly #holds = new Map<string, number>();
  readonly #listeners = new Set<(change: SampleChange) => void>();
  /** Open watches: the ids each saw change, or null once anything may have. */
  readonly #watches = new Map<ChangeWatch, Set<string> | null>();
  /** Held ids to ask for again; one request runs at a time and the next takes everything waiting. */
  readonly #due = new Set<string>();
  #running: Promise<void> | null = null;

  constructor(private readonly api: Api) {}

  /** The latest record of a held sample (after a deletion, the last one seen); undefined if not held. */
  get(id: string): Sample | undefined {
    return this.#records.get(id);
  }

  /** The core deleted this held sample. */
  isGone(id: string): boolean {
    return this.#gone.has(id);
  }

  /**
   * Notes which samples change from now on, for records about to come in a call's answer (an
   * import's): `hold(samples, watch)` then asks again only for those (see hold).
   */
  watch(): ChangeWatch {
    const watch: ChangeWatch = { stop: () => void this.#watches.delete(watch) };
    this.#watches.set(watch, new Set());
    return watch;
  }

  /**
   * Keeps these samples current until the returned release is called. The record given is shown
   * at once and asked for again, as it may have changed since it was read; `since`, a watch
   * started before they were read, says which may have: only those are asked for (a drop of
   * thousands of files costs no request beyond the import's own and the changes announced).
   */
  hold(samples: readonly Sample[], since?: ChangeWatch): () => void {
    for (const s of samples) {
      this.#holds.set(s.id, (this.#holds.get(s.id) ?? 0) + 1);
      if (!this.#records.has(s.id) && !this.#gone.has(s.id)) this.#records.set(s.id, s);
    }
    // A watch that saw a reconnect, or was stopped already, knows nothing: everything is asked for.
    const seen = since ? this.#watches.get(since) : null;
    since?.stop();
    void this.#ask((seen ? samples.filter((s) => seen.has(s.id)) : samples).map((s) => s.id));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const s of samples) this.#release(s.id);
    };
  }

  /** Called with what changed; returns the unsubscribe (for an $effect). */
  onChange(fn: (change: SampleChange) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /** Listens to the core for as long as the app runs; returns the cleanup for an $effect. */
  subscribe(): () => void {
    const offChanged = this.api.on('samples.changed', ({ ids }) => this.#changed(ids));
    const offReconnect = onReconnect(this.api, () => this.#changed(null));
    return () => {
      offChanged();
      offReconnect();
    };
  }

  /** Resolves once the records asked for so far are in (tests; a view that must not flash old data). */
  settled(): Promise<void> {
    return this.#running ?? Promise.resolve();
  }

  #changed(ids: readonly string[] | null): void {
    for (const [watch, seen] of this.#watches) {
      if (ids === null) this.#watches.set(watch, null);
      else for (const id of ids) seen?.add(id);
    }
    void this.#ask(ids === null ? [...this.#holds.keys()] : ids.filter((id) => this.#holds.has(id)));
    for (const fn of this.#listeners) fn(ids);
  }

  #release(id: string): void {
    const n = (this.#holds.get(id) ?? 0) - 1;
    if (n > 0) return void this.#holds.set(id, n);
    this.#holds.delete(id);
    this.#records.delete(id);
    this.#gone.delete(id);
    this.#due.delete(id);
  }

  #ask(ids: readonly string[]): Promise<void> {
    for (const id of ids) this.#due.add(id);
    if (this.#running || this.#due.size === 0) return this.#running ?? Promise.resolve();
    this.#running = this.#drain().finally(() => (this.#running = null));
    return this.#running;
  }

  async #drain(): Promise<void> {
    while (this.#due.size > 0) {
      const ids = [...this.#due].slice(0, CHUNK);
      for (const id of ids) this.#due.delete(id);
      try {
        const { samples } = await this.api.call('samples.list', { ids, limit: ids.length });
        this.#accept(ids, samples);
      } catch {
        // Not answered (connection lost): the reconnect asks for every held sample again.
      }
    }
  }

  #accept(asked: string[], samples: Sample[]): void {
    const found = new Map(samples.map((s) => [s.id, s]));
    for (const id of asked) {
      if (!this.#holds.has(id)) continue; // released while the answer was on its way
      const s = found.get(id);
      if (s) {
        this.#records.set(id, s);
        this.#gone.delete(id);
      } else {
        this.#gone.add(id); // the last record stays readable: a view says what was deleted
      }
    }
  }
}
