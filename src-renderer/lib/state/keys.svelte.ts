import type { KeyStatus } from '../../../src-main/core/contract/contract.js';
import type { Api } from '../api/client.js';
import { answer } from '../api/answer.js';

export type KeyKind = 'api-key' | 'hmac-key';

/** Whether the project's keys are stored. The keys themselves go in once and never come back. */
export class KeysState {
  status = $state.raw<KeyStatus | null>(null);
  error = $state<string | null>(null);
  /** Counts keys saved or cleared here: a replaced key reads "set" as before, but is another key. */
  edits = $state(0);

  constructor(private readonly api: Api) {}

  async refresh(): Promise<void> {
    const r = await answer(() => this.api.call('keys.status', {}));
    if (r.ok) this.status = r.value;
    this.error = r.error;
  }

  async set(kind: KeyKind, key: string): Promise<void> {
    this.status = await this.api.call('keys.set', { kind, key });
    this.edits++;
  }

  async clear(kind: KeyKind): Promise<void> {
    this.status = await this.api.call('keys.clear', { kind });
    this.edits++;
  }

  /** Keys are stored per project, so a new project ID means a different answer. */
  subscribe(): () => void {
    return this.api.on('settings.changed', () => void this.refresh());
  }
}
