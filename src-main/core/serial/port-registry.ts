import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { PortSettings, type SerialPortInfo } from '../contract/contract.js';
import { CoreError } from '../errors.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import type { Logger } from '../log.js';
import type { SerialOpener } from './byte-link.js';
import type { PortLister } from './port-lister.js';
import { notAPort } from './not-a-port.js';
import { normalizePortPath, portKey } from './port-names.js';

export const DEFAULT_PORT_SETTINGS: PortSettings = { baudRate: 'auto', mode: 'lines', frequencyHz: null, axes: null, units: null };

/** The rate the platform's firmware (AT) is opened at when the port's rate is Auto: the firmware's own. */
export const AT_BAUD = 115_200;

/** A port's rate for a command that cannot search (the AT firmware answers at its one rate). */
export function fixedBaud(s: PortSettings): number {
  return s.baudRate === 'auto' ? AT_BAUD : s.baudRate;
}

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
    /** Whose port names these are: COM3 and com3 are one port on Windows, tty.X and cu.X one on macOS. */
    private readonly platform: NodeJS.Platform = process.platform,
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

  /** Listed ports, then ports added by path that the system does not list under any spelling. */
  ports(): SerialPortInfo[] {
    const listed = new Set(this.#listed.map((p) => this.#same(p.path)));
    const manual = this.#saved.manualPaths.filter((p) => !listed.has(this.#same(p))).map((path) => ({ path, friendlyName: `${path} (added by path)`, addedByPath: true }));
    return [...this.#listed, ...manual];
  }

  /** The paths the user added by hand (listed by the system or not). */
  addedPaths(): string[] {
    return [...this.#saved.manualPaths];
  }

  /** The port `path` names, in the spelling it is listed and opened by (`com3` finds COM3). */
  find(path: string): SerialPortInfo | undefined {
    const key = this.#same(path);
    return this.ports().find((p) => this.#same(p.path) === key);
  }

  /** Remembers a port the system does not list, after checking something is there. */
  async addPath(input: string): Promise<SerialPortInfo> {
    const path = normalizePortPath(input, this.platform);
    const example = this.platform === 'win32' ? 'COM7' : this.platform === 'darwin' ? '/dev/cu.usbserial-0001' : '/dev/pts/3, /dev/rfcomm0';
    // A folder or a file exists too: kept, it stayed in the list for good as "/tmp (added by path)".
    const what = await notAPort(path, this.platform);
    if (what) throw new CoreError('InvalidArguments', `${path} is a ${what}, not a serial port. Give the port's path (e.g. ${example}).`);
    if (!(await this.opener.exists(path))) throw new CoreError('NotFound', `Nothing at ${path}. Check the port's name (e.g. ${example}).`);
    if (!this.#saved.manualPaths.some((p) => this.#same(p) === this.#same(path))) {
      this.#saved.manualPaths.push(path);
      await this.#save();
    }
    return this.find(path)!;
  }

  async removePath(path: string): Promise<void> {
    this.#saved.manualPaths = this.#saved.manualPaths.filter((p) => this.#same(p) !== this.#same(path));
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
    const sn = this.#listed.find((p) => this.#same(p.path) === this.#same(path))?.serialNumber;
    return sn ? `sn:${sn}` : `path:${this.#same(path)}`;
  }

  #same(path: string): string {
    return portKey(path, this.platform);
  }

  async #save(): Promise<void> {
    await writeFileAtomic(this.#file, JSON.stringify(this.#saved, null, 2) + '\n');
  }
}
