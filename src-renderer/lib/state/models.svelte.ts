import type { ModelEntry, UnreadableModel } from '../../../src-main/core/contract/contract.js';
import type { Api } from '../api/client.js';
import { answer } from '../api/answer.js';
import { errorText, formatBytes } from '../format.js';
import type { PathOf } from '../samples/add-one-file.js';

/** The browser shell sends an export's bytes in one message; the core takes up to this much. */
export const MAX_MODEL_BYTES = 64 * 1024 * 1024;

export type AddModelOutcome = { ok: true; model: ModelEntry } | { ok: false; message: string };

/**
 * The models added to the data folder (Settings → Models, the live view's Model control): the
 * list as the core has it, kept current by `models.changed`; adding an export's .zip by its path
 * (the desktop window) or by its bytes (the browser shell), removing, and giving an old build its axes.
 */
export class ModelsState {
  list = $state.raw<ModelEntry[]>([]);
  /** Model folders whose model.json is damaged: shown with what is wrong, so they can be removed. */
  unreadable = $state.raw<UnreadableModel[]>([]);
  loaded = $state(false);
  loadError = $state<string | null>(null);
  /** The file being added now (adding starts the model and classifies zeros: a second or two). */
  adding = $state<string | null>(null);

  constructor(
    private readonly api: Api,
    private readonly pathOf: PathOf | null = null,
  ) {}

  get(name: string): ModelEntry | null {
    return this.list.find((m) => m.name === name) ?? null;
  }

  async refresh(): Promise<void> {
    const [r] = await Promise.all([answer(() => this.api.call('models.list', {})), this.#refreshUnreadable()]);
    if (r.ok) this.list = r.value;
    this.loadError = r.error;
    this.loaded = true;
  }

  async #refreshUnreadable(): Promise<void> {
    // Older cores lack the method; a failure here leaves the readable list as it is.
    const r = await answer(() => this.api.call('models.unreadable', {}));
    if (r.ok) this.unreadable = r.value;
  }

  /** Keeps the list current; returns the cleanup for an $effect. */
  subscribe(): () => void {
    return this.api.on('models.changed', (list) => {
      this.list = list;
      this.loaded = true;
      this.loadError = null;
      void this.#refreshUnreadable();
    });
  }

  /** Adds one export: where it lies when the shell knows its path, else its bytes. Never throws: the outcome says. */
  async add(file: File, o: { name?: string } = {}): Promise<AddModelOutcome> {
    this.adding = file.name;
    try {
      const name = o.name?.trim() || undefined;
      const path = this.pathOf?.(file) ?? '';
      let model: ModelEntry;
      if (path !== '') {
        model = await this.api.call('models.add', { path, ...(name ? { name } : {}) });
      } else {
        if (file.size > MAX_MODEL_BYTES) {
          return { ok: false, message: `${file.name} is ${formatBytes(file.size)}; an export sent from the browser may be up to ${formatBytes(MAX_MODEL_BYTES)}. Add it on the lab station with "capture-desk model add".` };
        }
        const bytes = new Uint8Array(await file.arrayBuffer());
        model = await this.api.call('models.addBytes', { fileName: file.name, bytes, ...(name ? { name } : {}) });
      }
      // The event brings the list too; this keeps the new model visible even if it is late.
      if (!this.list.some((m) => m.name === model.name)) this.list = [...this.list, model].sort((a, b) => a.name.localeCompare(b.name));
      return { ok: true, model };
    } catch (err) {
      return { ok: false, message: errorText(err) };
    } finally {
      this.adding = null;
    }
  }

  async remove(name: string): Promise<void> {
    await this.api.call('models.remove', { name });
    this.list = this.list.filter((m) => m.name !== name);
    this.unreadable = this.unreadable.filter((m) => m.name !== name);
  }

  async setAxes(name: string, axes: number): Promise<ModelEntry> {
    const m = await this.api.call('models.setAxes', { name, axes });
    this.list = this.list.map((x) => (x.name === name ? m : x));
    return m;
  }
}
