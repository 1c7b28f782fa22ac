import type { Logger } from '../log.js';
import { Listeners } from './listeners.js';
import type { AudioDevice } from './worker-protocol.js';

export interface DeviceChange {
  devices: AudioDevice[];
  added: AudioDevice[];
  removed: AudioDevice[];
}

/**
 * Which microphones there are, and when that changes: each list the supervisor reads is held
 * against the one before, and while anyone watches, the list is read again every `pollMs`.
 * Reading it is the supervisor's (it owns the capture processes that answer).
 */
export class DeviceWatch {
  readonly changes = new Listeners<DeviceChange>();
  #devices: AudioDevice[] | null = null;
  #pollTimer: NodeJS.Timeout | null = null;
  /** A watcher's first list failed (e.g. a stuck sound system): the first list that comes is news to it. */
  #missedFirst = false;

  constructor(
    private readonly list: () => Promise<AudioDevice[]>,
    private readonly log: Logger,
    private readonly pollMs: number,
  ) {}

  /** Calls `cb` with the list now and whenever a device appears or disappears. */
  watch(cb: (change: DeviceChange) => void, signal?: AbortSignal): () => void {
    // Changes found by polls answered before the first list reached `cb` wait for it: several
    // answers can arrive in one read, and a change must never come before the list it changes.
    let pending: DeviceChange[] | null = [];
    const off = this.changes.on((ch) => (pending ? pending.push(ch) : cb(ch)), signal);
    const stopWatch = () => {
      off();
      if (this.changes.size === 0 && this.#pollTimer) {
        clearInterval(this.#pollTimer);
        this.#pollTimer = null;
      }
    };
    signal?.addEventListener('abort', stopWatch, { once: true });
    this.#pollTimer ??= setInterval(() => void this.list().catch((err: unknown) => this.log.warn('audio device poll failed', { error: String(err) })), this.pollMs);
    const flush = () => {
      const later = pending ?? [];
      pending = null;
      for (const ch of later) if (!signal?.aborted) cb(ch);
    };
    void this.list().then(
      (devices) => {
        if (!signal?.aborted) cb({ devices, added: [], removed: [] });
        flush();
      },
      (err: unknown) => {
        this.log.warn('audio device list failed', { error: String(err) });
        // A poll may have listed them meanwhile (the failed list was stuck behind it): give that one.
        const known = this.#devices;
        if (known && !signal?.aborted) cb({ devices: known, added: [], removed: [] });
        else this.#missedFirst = true;
        flush();
      },
    );
    return stopWatch;
  }

  /** A list just read: says what came and went since the one before. */
  note(devices: AudioDevice[]): void {
    const before = this.#devices;
    this.#devices = devices;
    if (!before) {
      if (this.#missedFirst && devices.length) this.changes.emit({ devices, added: devices, removed: [] });
      this.#missedFirst = false;
      return;
    }
    const added = devices.filter((d) => !before.some((b) => b.id === d.id));
    const removed = before.filter((b) => !devices.some((d) => d.id === b.id));
    if (added.length || removed.length) this.changes.emit({ devices, added, removed });
  }

  close(): void {
    if (this.#pollTimer) clearInterval(this.#pollTimer);
    this.#pollTimer = null;
  }
}
