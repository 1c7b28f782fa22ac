import type { ClassificationDigest } from '../../../src-main/core/contract/contract.js';
import type { Api } from '../api/client.js';
import type { SampleChange, SampleIndex } from './sample-index.svelte.js';

/**
 * The samples table's "model says" column: the newest kept classification of each sample shown.
 * Asked for the rows that appear, and again for those the sample index says changed (a
 * classification kept is announced as a change of its sample).
 */
export class ModelSays {
  /** By sample id; a sample without a kept result has no entry. */
  byId = $state.raw<ReadonlyMap<string, ClassificationDigest>>(new Map());
  #shown = new Set<string>();
  /** The last question asked about each row. */
  readonly #latest = new Map<string, number>();
  #asked = 0;

  constructor(
    private readonly api: Api,
    private readonly index: SampleIndex,
  ) {}

  get(id: string): ClassificationDigest | undefined {
    return this.byId.get(id);
  }

  /** The rows now shown: rows new to the table are asked for, rows gone are forgotten. */
  show(ids: readonly string[]): void {
    const fresh = ids.filter((id) => !this.#shown.has(id));
    this.#shown = new Set(ids);
    for (const id of [...this.#latest.keys()]) if (!this.#shown.has(id)) this.#latest.delete(id);
    const kept = new Map([...this.byId].filter(([id]) => this.#shown.has(id)));
    if (kept.size !== this.byId.size) this.byId = kept;
    if (fresh.length) void this.#fetch(fresh);
  }

  /** Follows the sample index while the table is shown; returns the cleanup for an $effect. */
  subscribe(): () => void {
    return this.index.onChange((change: SampleChange) => {
      const ids = change === null ? [...this.#shown] : change.filter((id) => this.#shown.has(id));
      if (ids.length) void this.#fetch(ids);
    });
  }

  async #fetch(ids: string[]): Promise<void> {
    const asked = ++this.#asked;
    for (const id of ids) this.#latest.set(id, asked);
    try {
      const { results } = await this.api.call('samples.modelSays', { ids });
      const found = new Map(results.map((r) => [r.id, r]));
      const next = new Map(this.byId);
      for (const id of ids) {
        // An answer overtaken by a newer question about the same row is dropped.
        if (this.#latest.get(id) !== asked || !this.#shown.has(id)) continue;
        const r = found.get(id);
        if (r) next.set(id, r);
        else next.delete(id);
      }
      this.byId = next;
    } catch {
      // The column stays as it was; the next change or reconnect asks again.
    }
  }
}
