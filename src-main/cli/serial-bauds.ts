import type { SerialPortInfo } from '../core/contract/contract.js';
import type { Logger } from '../core/log.js';
import { BaudMemory } from '../core/serial/baud/baud-memory.js';
import { portKey } from '../core/serial/port-names.js';
import { serialportLister } from '../core/serial/serialport-lister.js';

/**
 * The baud rates remembered in the data folder, each board known as the system lists it (its USB
 * serial number), as the app knows it: a rate found by `record serial` is tried first by the app.
 */
export function openBaudMemory(dataDir: string, log: Logger, listed?: readonly SerialPortInfo[]): Promise<BaudMemory> {
  // `listed`: the system's ports as the caller listed them just now (not listed again per board).
  const ports = async () => listed ?? (await serialportLister.list());
  return BaudMemory.open(dataDir, async (path) => (await ports()).find((p) => portKey(p.path) === portKey(path)), log);
}
