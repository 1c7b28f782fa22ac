import type { Source } from '../../../src-main/core/contract/contract.js';
import type { Api } from '../api/client.js';

/** The device list: serial ports and the simulated sensor, refreshed on demand and on core events. */
export class Sources {
  list = $state.raw<Source[]>([]);
  loading = $state(false);
  loaded = $state(false);
  selectedId = $state<string | null>(null);
  selected = $derived(this.list.find((s) => s.id === this.selectedId) ?? null);
  /** What is wrong with the sound system (e.g. a stuck JACK lock), in the core's words; null when all is well. */
  audioProblem = $state<string | null>(null);

  constructor(private readonly api: Api) {}

  async refresh(): Promise<void> {
    this.loading = true;
    try {
      this.list = await this.api.call('sources.list', {});
      this.loaded = true;
      void this.#audioStatus();
    } finally {
      this.loading = false;
    }
  }

  /** The microphones' problem, asked again whenever the list changes (a stuck sound system changes it too). */
  async #audioStatus(): Promise<void> {
    try {
      this.audioProblem = (await this.api.call('audio.status', {})).problem;
    } catch {
      // an older core without it, or the shell closing: nothing to show
    }
  }

  /** Keeps the list live; returns the cleanup for an $effect. */
  subscribe(): () => void {
    const offChanged = this.api.on('sources.changed', (list) => {
      this.list = list;
      void this.#audioStatus();
    });
    const offState = this.api.on('stream.state', (s) => {
      this.list = this.list.map((src) => (src.id === s.sourceId ? { ...src, streaming: s.state === 'started' } : src));
    });
    return () => {
      offChanged();
      offState();
    };
  }
}
