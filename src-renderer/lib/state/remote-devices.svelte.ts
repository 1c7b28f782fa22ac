import type { RemoteDevice } from '../../../src-main/core/contract/contract.js';
import type { Api } from '../api/client.js';
import { answer } from '../api/answer.js';
import { followEvent } from '../api/reconnect.js';
import { errorText } from '../format.js';
import { ticks } from '../remote/remote-words.js';

interface Known {
  device: RemoteDevice;
  /** When the core said it (performance.now()): a reconnect countdown runs from here. */
  at: number;
}

/**
 * Sources connected to the platform as devices (remote management): the core's view of each link,
 * what this window is asking of it, and what went wrong doing so. A source the core has never
 * heard of is simply not connected.
 */
export class RemoteDevicesState {
  #known = $state.raw<Record<string, Known>>({});
  /** Calls in flight per source (the switch waits for its answer). */
  #busy = $state.raw<Record<string, true>>({});
  /** The last failed call per source, in the core's words; cleared by the next attempt. */
  #errors = $state.raw<Record<string, string>>({});
  /** Could not read the list at all. */
  loadError = $state<string | null>(null);
  /** A clock for countdowns; it only runs while some link waits to reconnect (see runClock). */
  now = $state(performance.now());
  waiting = $derived(Object.values(this.#known).some((k) => k.device.enabled && ticks(k.device)));

  constructor(private readonly api: Api) {}

  device(sourceId: string): RemoteDevice | null {
    return this.#known[sourceId]?.device ?? null;
  }

  /** Milliseconds since the core last reported this source (for "Reconnecting in N s"). */
  sinceReport(sourceId: string): number {
    const k = this.#known[sourceId];
    return k ? Math.max(0, this.now - k.at) : 0;
  }

  busy(sourceId: string): boolean {
    return this.#busy[sourceId] === true;
  }

  error(sourceId: string): string | null {
    return this.#errors[sourceId] ?? null;
  }

  async refresh(): Promise<void> {
    const r = await answer(() => this.api.call('remote.list', {}));
    if (r.ok) {
      const at = performance.now();
      this.#known = Object.fromEntries(r.value.map((device) => [device.sourceId, { device, at }]));
    }
    this.loadError = r.error;
  }

  /** Keeps the links live; returns the cleanup for an $effect. */
  subscribe(): () => void {
    // Events sent while the connection was down are lost: read the whole list again.
    return followEvent(this.api, 'remote.changed', (d) => this.#accept(d), () => void this.refresh());
  }

  /** Ticks `now` while a countdown is shown; returns the cleanup for an $effect. */
  runClock(): () => void {
    this.now = performance.now();
    const t = setInterval(() => (this.now = performance.now()), 250);
    return () => clearInterval(t);
  }

  /** "Connect to platform" on or off; false when the core said no (the reason is in error()). */
  async setEnabled(sourceId: string, enabled: boolean): Promise<boolean> {
    return this.#run(sourceId, () => this.api.call('remote.setEnabled', { sourceId, enabled }));
  }

  /** Renames the device on the platform; false when that failed (the reason is in error()). */
  async rename(sourceId: string, name: string): Promise<boolean> {
    return this.#run(sourceId, () => this.api.call('remote.rename', { sourceId, name }));
  }

  dismissError(sourceId: string): void {
    this.#setError(sourceId, null);
  }

  async #run(sourceId: string, call: () => Promise<RemoteDevice>): Promise<boolean> {
    this.#busy = { ...this.#busy, [sourceId]: true };
    this.#setError(sourceId, null);
    try {
      this.#accept(await call());
      return true;
    } catch (err) {
      this.#setError(sourceId, errorText(err));
      return false;
    } finally {
      const { [sourceId]: _, ...rest } = this.#busy;
      this.#busy = rest;
    }
  }

  #accept(device: RemoteDevice): void {
    const before = this.#known[device.sourceId];
    // An answer may arrive after a newer event with the same state: keep the countdown's start.
    const same = before && before.device.state === device.state && before.device.retryInMs === device.retryInMs;
    this.#known = { ...this.#known, [device.sourceId]: { device, at: same ? before.at : performance.now() } };
  }

  #setError(sourceId: string, text: string | null): void {
    const { [sourceId]: _, ...rest } = this.#errors;
    this.#errors = text === null ? rest : { ...rest, [sourceId]: text };
  }
}
