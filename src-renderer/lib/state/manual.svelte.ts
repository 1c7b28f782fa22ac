import type { ManualEntry, ManualPage } from '../../../src-main/core/contract/contract.js';
import type { Api } from '../api/client.js';
import { answer } from '../api/answer.js';

export const MANUAL_HOME = 'index';

/** Where a reader is: a page and, when a link named one, a heading on it. */
export interface ManualPlace {
  name: string;
  anchor: string | null;
}

/**
 * The manual as the Manual view shows it: the page list (manual.index), the page open now
 * (manual.page) and the places visited before it, so Back returns to them. Pages come from the core
 * on each visit: they are small, and the core reads them from the app's own resources.
 */
export class ManualState {
  pages = $state.raw<ManualEntry[]>([]);
  page = $state.raw<ManualPage | null>(null);
  place = $state.raw<ManualPlace>({ name: MANUAL_HOME, anchor: null });
  error = $state<string | null>(null);
  loading = $state(false);
  #history = $state.raw<ManualPlace[]>([]);
  #asked = 0;

  constructor(private readonly api: Api) {}

  get canGoBack(): boolean {
    return this.#history.length > 0;
  }

  /** Opens a page (the index unless named); a visit to another page can be undone with back(). */
  async open(name = MANUAL_HOME, anchor: string | null = null): Promise<void> {
    if (this.page && name !== this.place.name) this.#history = [...this.#history, this.place];
    await this.#show({ name, anchor });
  }

  async back(): Promise<void> {
    const prev = this.#history.at(-1);
    if (!prev) return;
    this.#history = this.#history.slice(0, -1);
    await this.#show(prev);
  }

  async #show(place: ManualPlace): Promise<void> {
    const mine = ++this.#asked;
    this.loading = true;
    if (this.pages.length === 0) {
      const list = await answer(() => this.api.call('manual.index', {}));
      if (list.ok) this.pages = list.value.pages;
    }
    const r = await answer(() => this.api.call('manual.page', { name: place.name }));
    if (mine !== this.#asked) return; // a newer visit overtook this one
    this.loading = false;
    this.place = place;
    if (r.ok) {
      this.page = r.value;
      this.error = null;
    } else {
      this.error = r.error;
    }
  }
}
