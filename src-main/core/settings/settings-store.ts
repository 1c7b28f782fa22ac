import { hostname } from 'node:os';
import { join } from 'node:path';
import { Settings } from '../contract/contract.js';
import { CoreError } from '../errors.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { keepAside, readJsonFile } from '../fs/kept-json-file.js';
import type { Logger } from '../log.js';

export const DEFAULT_SETTINGS: Settings = {
  ingestionUrl: 'https://ingestion.edgeimpulse.com',
  managementUrl: 'https://studio.edgeimpulse.com/v1',
  projectId: null,
  deviceName: safeHostname(),
  labelTargets: {},
  uploadConcurrency: 4,
  // Errors (gaps, a wrong rate, a dead sensor, silence) are held back; warnings only show a badge.
  qualityHold: 'errors',
  qualityMinLengthMs: 500,
  projectWindowMs: null,
  remoteMgmtUrl: null,
  classifyAfterUpload: 'off',
  classifyTargets: {},
};

/**
 * Settings live in one JSON file in the data directory. Secrets never go here (they live in the
 * OS keychain), so this file is safe to attach to a bug report.
 */
export class SettingsStore {
  readonly #file: string;
  readonly #log: Logger;
  #current: Settings = DEFAULT_SETTINGS;

  private constructor(dataDir: string, log: Logger) {
    this.#file = join(dataDir, 'settings.json');
    this.#log = log;
  }

  static async open(dataDir: string, log: Logger): Promise<SettingsStore> {
    const store = new SettingsStore(dataDir, log);
    await store.#load();
    return store;
  }

  get(): Settings {
    return this.#current;
  }

  async set(patch: Partial<Settings>): Promise<Settings> {
    const next = Settings.safeParse({ ...this.#current, ...patch });
    if (!next.success) {
      const i = next.error.issues[0];
      throw new CoreError('InvalidArguments', `Setting ${i?.path.join('.') ?? ''} ${i?.message ?? 'is invalid'}.`);
    }
    await writeFileAtomic(this.#file, JSON.stringify(next.data, null, 2) + '\n');
    this.#current = next.data;
    return this.#current;
  }

  async #load(): Promise<void> {
    const read = await readJsonFile(this.#file);
    if (!read) return; // first start: defaults
    const raw = read.raw;
    // Keep every valid field of a partly broken file; only the broken ones fall back to defaults.
    const merged: Record<string, unknown> = { ...DEFAULT_SETTINGS };
    let broken = raw === undefined || typeof raw !== 'object' || raw === null;
    if (!broken) {
      for (const [key, value] of Object.entries(raw as object)) {
        const field = Settings.shape[key as keyof Settings];
        if (field?.safeParse(value).success) merged[key] = value;
        else broken = true;
      }
    }
    this.#current = Settings.parse(merged);
    if (broken) {
      // Never lose what the user wrote: the unreadable file is kept next to the new one.
      const aside = await keepAside(this.#file);
      this.#log.warn('settings file was partly unreadable; kept a copy and used defaults for the bad fields', { aside });
    }
  }
}

function safeHostname(): string {
  const name = hostname().trim();
  return name.length > 0 ? name.slice(0, 128) : 'capture-desk';
}
