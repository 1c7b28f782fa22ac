import { readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../fs/atomic-write.js';
import type { Logger } from '../log.js';

const Entry = z.object({
  /** The source this entry was made for ("serial:/dev/ttyACM0", "audio:<id>"). */
  sourceId: z.string(),
  enabled: z.boolean(),
  /** Set by the person (or `connect --device-id`); null = the default id. */
  deviceId: z.string().min(1).max(128).nullable(),
  /** The name last given with Rename. */
  name: z.string().nullable(),
});
export type RemoteEntry = z.infer<typeof Entry>;
const File = z.object({ version: z.literal(1), devices: z.record(z.string(), Entry) });

export const REMOTE_DEVICES_FILE = 'remote-devices.json';

/**
 * Which sources are connected to the platform, remembered per board (by USB serial number, else
 * by port path) and per microphone: `remote-devices.json` in the data folder. No keys in it.
 */
export class RemoteConfig {
  #devices: Record<string, RemoteEntry> = {};
  readonly #file: string;

  private constructor(dataDir: string, private readonly log: Logger) {
    this.#file = join(dataDir, REMOTE_DEVICES_FILE);
  }

  static async open(dataDir: string, log: Logger): Promise<RemoteConfig> {
    const c = new RemoteConfig(dataDir, log);
    await c.#load();
    return c;
  }

  get(key: string): RemoteEntry | undefined {
    return this.#devices[key];
  }

  entries(): Array<[string, RemoteEntry]> {
    return Object.entries(this.#devices);
  }

  async set(key: string, entry: RemoteEntry): Promise<void> {
    this.#devices[key] = Entry.parse(entry);
    await writeFileAtomic(this.#file, JSON.stringify({ version: 1, devices: this.#devices }, null, 2) + '\n');
  }

  async #load(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.#file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    let parsed: z.infer<typeof File> | null = null;
    try {
      parsed = File.parse(JSON.parse(text));
    } catch {
      parsed = null;
    }
    if (parsed) {
      this.#devices = parsed.devices;
      return;
    }
    // Never lose what was there: kept beside, and every source starts "not connected".
    const aside = `${this.#file}.broken-${Date.now()}`;
    await rename(this.#file, aside);
    this.log.warn('remote-devices.json was unreadable; kept a copy, no source is connected to the platform', { aside });
  }
}
