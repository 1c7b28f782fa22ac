import type { Api } from '../api/client.js';
import { LiveStream } from './live-stream.svelte.js';

/**
 * Sources kept on screen while another one is selected: two boards side by side, or a board and
 * the simulator. Each has its own LiveStream (ring buffer + counters); the core streams them all.
 */
export class PinnedStreams {
  list = $state.raw<Array<{ id: string; stream: LiveStream }>>([]);

  constructor(private readonly api: Api) {}

  has(id: string): boolean {
    return this.list.some((p) => p.id === id);
  }

  async pin(id: string): Promise<void> {
    if (this.has(id)) return;
    const stream = new LiveStream(this.api);
    await stream.start(id); // an already running source is joined, not restarted
    this.list = [...this.list, { id, stream }];
  }

  unpin(id: string): void {
    const p = this.list.find((x) => x.id === id);
    p?.stream.clear();
    this.list = this.list.filter((x) => x.id !== id);
  }

  clear(): void {
    for (const p of this.list) p.stream.clear();
    this.list = [];
  }
}
