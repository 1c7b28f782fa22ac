import type { SerialPortInfo } from '../contract/contract.js';

/**
 * The serial number last listed at each path in this process. A board unplugged and plugged back
 * in may come back at another path (ttyACM0 → ttyACM1, while something still holds the old one);
 * its serial number finds it there. Paths are only ever overwritten, never forgotten: the path a
 * board left is exactly the one asked about.
 */
export class SeenPorts {
  readonly #serialAt = new Map<string, string>();

  remember(ports: readonly SerialPortInfo[]): void {
    for (const p of ports) if (p.serialNumber) this.#serialAt.set(p.path, p.serialNumber);
  }

  serialAt(path: string): string | undefined {
    return this.#serialAt.get(path);
  }
}

/** What the real lister saw (serialport-lister.ts), for the real opener's explanations. */
export const seenPorts = new SeenPorts();
