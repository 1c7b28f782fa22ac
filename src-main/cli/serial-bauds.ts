import type { Logger } from '../core/log.js';
import { BaudMemory } from '../core/serial/baud/baud-memory.js';
import { portKey } from '../core/serial/port-names.js';
import { serialportLister } from '../core/serial/serialport-lister.js';

/**
 * The baud rates remembered in the data folder, each board known as the system lists it (its USB
 * serial number), as the app knows it: a rate found by `record serial` is tried first by the app.
 */
export function openBaudMemory(dataDir: string, log: Logger): Promise<BaudMemory> {
  return BaudMemory.open(dataDir, async (path) => (await serialportLister.list()).find((p) => portKey(p.path) === portKey(path)), log);
}
