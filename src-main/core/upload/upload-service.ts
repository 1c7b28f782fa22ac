import type { QueueStatus } from '../contract/contract.js';
import { coalesce } from '../coalesce.js';
import { CoreError } from '../errors.js';
import type { EventBus } from '../event-bus.js';
import type { Logger } from '../log.js';
import type { SampleStore } from '../samples/sample-store.js';
import type { ProjectKeys } from '../secrets/project-keys.js';
import type { SettingsStore } from '../settings/settings-store.js';
import { getDatasetSummary, type ManagementTarget } from './management-client.js';
import { UploadQueue } from './upload-queue.js';

export interface UploadServiceDeps {
  store: SampleStore;
  settings: SettingsStore;
  keys: ProjectKeys;
  bus: EventBus;
  log: Logger;
  concurrency?: number;
}

/** The app's upload queue: it reads the URL and key at send time and tells the UI what changed, coalesced. */
export class UploadService {
  readonly queue: UploadQueue;
  readonly #d: UploadServiceDeps;
  readonly #changedIds: ReturnType<typeof coalesce<string>>;
  readonly #status: ReturnType<typeof coalesce<() => QueueStatus>>;

  constructor(d: UploadServiceDeps) {
    this.#d = d;
    this.#changedIds = coalesce<string>(100, (ids) => d.bus.emit('samples.changed', { ids: [...new Set(ids)] }));
    // Only the latest status matters, and it is counted once per flush rather than once per change.
    this.#status = coalesce<() => QueueStatus>(100, (all) => {
      let status: QueueStatus;
      try {
        status = all.at(-1)!();
      } catch (err) {
        // A late flush after shutdown closed the index: nobody is listening any more.
        d.log.warn('queue status not sent', { error: String(err) });
        return;
      }
      d.bus.emit('queue.changed', status);
    });
    this.queue = new UploadQueue({
      store: d.store,
      log: d.log,
      concurrency: d.concurrency ?? d.settings.get().uploadConcurrency,
      target: async () => {
        const s = d.settings.get();
        const key = await this.#apiKey(s.projectId);
        return { ingestionUrl: s.ingestionUrl, apiKey: key };
      },
      // Saving a key resumes the app's queue by itself (keys.set): the pause says so, rather than
      // the queue's own "until you set a valid key and resume", which sent people looking for a button.
      keyRefusedHint: 'Enter the right key for this project in Settings → API key; uploads resume when it is saved.',
      onChange: (status, ids) => {
        for (const id of ids) this.#changedIds.push(id);
        this.#status.push(status);
      },
    });
  }

  start(): void {
    this.queue.start();
  }

  async stop(): Promise<void> {
    await this.queue.stop();
    this.#changedIds.flushNow();
    this.#status.flushNow();
  }

  /** Samples added or edited outside the queue (captures, imports, relabels). */
  announce(ids: string[]): void {
    for (const id of ids) this.#changedIds.push(id);
    this.#status.push(() => this.queue.status());
  }

  async management(): Promise<ManagementTarget> {
    const s = this.#d.settings.get();
    if (s.projectId === null) throw new CoreError('InvalidArguments', 'Set the project ID in Settings first (it is the number in the project URL on the platform).');
    return { managementUrl: s.managementUrl, apiKey: await this.#apiKey(s.projectId), projectId: s.projectId };
  }

  async platformSummary() {
    return getDatasetSummary(await this.management());
  }

  async #apiKey(projectId: number | null): Promise<string> {
    const key = await this.#d.keys.getApiKey(projectId).catch((err: unknown) => {
      throw new CoreError('Unauthorized', `Cannot read the API key: ${(err as Error).message}`);
    });
    if (key === null) throw new CoreError('Unauthorized', 'No API key is set for this project. Enter it in Settings → API key; uploads resume then.');
    return key;
  }
}
