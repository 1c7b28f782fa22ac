import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../../fs/atomic-write.js';
import type { Logger } from '../../log.js';
import { isRealSerialNumber, portKey } from '../port-names.js';

/** What the system says of the board on a port, as far as knowing it again goes. */
export interface BoardIdentity {
  serialNumber?: string | undefined;
  vendorId?: string | undefined;
  productId?: string | undefined;
}

/** Where rates found are remembered, per board; the serial source asks it before searching. */
export interface BaudBook {
  recall(path: string): Promise<number | null>;
  remember(path: string, baud: number): Promise<void>;
}

/**
 * One key per board: its USB serial number follows it to any socket; without one (CH340 boards)
 * vendor:product and the path (the same kind of board in the same socket); else the path.
 */
export function boardKey(path: string, who: BoardIdentity | undefined, platform: NodeJS.Platform = process.platform): string {
  if (isRealSerialNumber(who?.serialNumber)) return `sn:${who.serialNumber}`;
  const at = portKey(path, platform);
  if (who?.vendorId && who.productId) return `usb:${who.vendorId.toLowerCase()}:${who.productId.toLowerCase()}@${at}`;
  return `path:${at}`;
}

const Saved = z.object({ rates: z.record(z.string(), z.number().int().min(300).max(12_000_000)).default({}) });

/** The file `baud-rates.json` in the data folder: rate found per board key. */
export class BaudMemory implements BaudBook {
  #saved: z.infer<typeof Saved> = { rates: {} };
  #writes: Promise<void> = Promise.resolve();

  private constructor(
    private readonly file: string,
    /** The board on a path now (the system's port list); undefined for a port it does not list. */
    private readonly identify: (path: string) => Promise<BoardIdentity | undefined>,
    private readonly log: Logger,
  ) {}

  static async open(dataDir: string, identify: (path: string) => Promise<BoardIdentity | undefined>, log: Logger): Promise<BaudMemory> {
    const m = new BaudMemory(join(dataDir, 'baud-rates.json'), identify, log);
    try {
      m.#saved = Saved.parse(JSON.parse(await readFile(m.file, 'utf8')));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') log.warn('remembered baud rates unreadable; each board is searched afresh', { error: String(err) });
    }
    return m;
  }

  async recall(path: string): Promise<number | null> {
    return this.#saved.rates[await this.#key(path)] ?? null;
  }

  async remember(path: string, baud: number): Promise<void> {
    const key = await this.#key(path);
    if (this.#saved.rates[key] === baud) return;
    this.#saved.rates[key] = baud;
    const text = JSON.stringify(this.#saved, null, 2) + '\n';
    this.#writes = this.#writes.then(() => writeFileAtomic(this.file, text));
    await this.#writes;
  }

  async #key(path: string): Promise<string> {
    const who = await this.identify(path).catch((err: unknown) => {
      // Without the system's list (no udevadm) the path is the key: said once in the log, not an error.
      this.log.warn('could not tell which board is on the port; its baud rate is remembered by path', { path, error: String(err) });
      return undefined;
    });
    return boardKey(path, who);
  }
}
