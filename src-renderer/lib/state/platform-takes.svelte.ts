import type { Api } from '../api/client.js';
import { takeOfStatus, type PlatformTake } from '../remote/platform-takes.js';

/** Takes of the recording service that the platform asked for, while they record and save. */
export class PlatformTakes {
  #bySession = $state.raw<Record<string, PlatformTake>>({});
  list = $derived(Object.values(this.#bySession));

  constructor(private readonly api: Api) {}

  /** Follows record.state; returns the cleanup for an $effect. */
  subscribe(): () => void {
    return this.api.on('record.state', (s) => {
      const take = takeOfStatus(s);
      if (take) this.#bySession = { ...this.#bySession, [s.sessionId]: take };
      else if (s.sessionId in this.#bySession) {
        const { [s.sessionId]: _, ...rest } = this.#bySession;
        this.#bySession = rest;
      }
    });
  }
}
