import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { PortSettings, type SerialPortInfo } from '../contract.js';
import { CoreError } from '../errors.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import type { Logger } from '../log.js';
import type { SerialOpener } from './byte-link.js';
import type { PortLister } from './port-lister.js';

export const DEFAULT_PORT_SETTINGS: PortSettings = { baudRate: 115_200, mode: 'lines', frequencyHz: null, axes: null, units: null };

const Saved = z.object({
  /** Ports opened by path (pseudo-terminals, Bluetooth rfcomm) that the system does not list. */
  manualPaths: z.array(z.string()).default([]),
  /** Keyed by USB serial number when the board has one (it follows the board across sockets), else by path. */
  settings: z.record(z.string(), PortSettings).default({}),
});

/**
 * The ports a user can pick: what the system lists (polled, so plugging a board in shows up
 * without a restart) plus ports added by path, and the settings remembered for each board.
 */
export class PortRegistry {
  #listed: SerialPortInfo[] = [];
  #saved: z.infer<typeof Saved> = { manualPaths: [], settings: {} };
  #timer: NodeJS.Timeout | null = null;
  readonly #file: string;

  constructor(
    dataDir: string,
    private readonly lister: PortLister,
    private readonly opener: SerialOpener,
    private readonly log: Logger,
  ) {
    this.#file = join(dataDir, 'serial-ports.json');
  }

  async load(): Promise<void> {
    try {
      this.#saved = Saved.parse(JSON.parse(await readFile(this.#file, 'utf8')));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.log.warn('serial port settings unreadable; starting fresh', { error: String(err) });
    }
  }

  /** Polls the system's port list; `onChange` fires when a board is plugged in or out. */
  watch(intervalMs: number, onChange: (ports: SerialPortInfo[]) => void): void {
    const poll = async () => {
      const before = JSON.stringify(this.#listed);
      await this.refresh();
      if (JSON.stringify(this.#listed) !== before) onChange(this.ports());
    };
    this.#timer = setInterval(() => void poll().catch((e: unknown) => this.log.warn('port poll failed', { error: String(e) })), intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
  }

  async refresh(): Promise<SerialPortInfo[]> {
    this.#listed = await this.lister.list().catch((err: unknown) => {
      this.log.warn('serial port listing failed', { error: String(err) });
      return this.#listed;
    });
    return this.ports();
  }

  ports(): SerialPortInfo[] {
    const listed = new Set(this.#listed.map((p) => p.path));
    const manual = this.#saved.manualPaths.filter((p) => !listed.has(p)).map((path) => ({ path, friendlyName: `${path} (added by path)` }));
    return [...this.#listed, ...manual];
  }

  /** The paths the user added by hand (listed by the system or not). */
  addedPaths(): string[] {
    return [...this.#saved.manualPaths];
  }

  find(path: string): SerialPortInfo | undefined {
    return this.ports().find((p) => p.path === path);
  }

  /** Remembers a port the system does not list, after checking something is there. */
  async addPath(path: string): Promise<SerialPortInfo> {
    if (!(await this.opener.exists(path))) throw new CoreError('NotFound', `Nothing at ${path}. Check the path (e.g. /dev/pts/3, /dev/rfcomm0, COM7).`);
    if (!this.#saved.manualPaths.includes(path)) {
      this.#saved.manualPaths.push(path);
      await this.#save();
    }
    return this.find(path)!;
  }

  async removePath(path: string): Promise<void> {
    this.#saved.manualPaths = this.#saved.manualPaths.filter((p) => p !== path);
    await this.#save();
  }

  settingsFor(path: string): PortSettings {
    return { ...DEFAULT_PORT_SETTINGS, ...this.#saved.settings[this.#key(path)] };
  }

  async saveSettings(path: string, patch: Partial<PortSettings>): Promise<PortSettings> {
    const next = PortSettings.parse({ ...this.settingsFor(path), ...patch });
    this.#saved.settings[this.#key(path)] = next;
    await this.#save();
    return next;
  }

  #key(path: string): string {
    const sn = this.#listed.find((p) => p.path === path)?.serialNumber;
    return sn ? `sn:${sn}` : `path:${path}`;
  }

  async #save(): Promise<void> {
    await writeFileAtomic(this.#file, JSON.stringify(this.#saved, null, 2) + '\n');
  }
}
