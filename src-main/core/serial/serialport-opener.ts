import { access } from 'node:fs/promises';
import { SerialPort } from 'serialport';
import { CoreError } from '../errors.js';
import { explainOpenError } from './open-failure.js';
import { linuxPortSystem } from './port-holders.js';
import { seenPorts } from './seen-ports.js';
import { serialportLister } from './serialport-lister.js';
import type { ByteLink, SerialOpener } from './byte-link.js';
import { normalizePortPath, portKey } from './port-names.js';

export { openError } from './open-error.js';

/** Opens ports with node-serialport and turns its errors into ones a lab user can act on. */
export const serialportOpener: SerialOpener = {
  async open(given, baudRate) {
    const path = normalizePortPath(given);
    const port = new SerialPort({ path, baudRate, autoOpen: false });
    const failed = await new Promise<Error | null>((resolve) => port.open((err) => resolve(err ?? null)));
    if (failed) throw await explainOpenError(path, failed, openFailureContext());
    // Whatever the OS buffered before we opened is from an unknown time: it would arrive as one
    // burst, skew the rate estimate and start the stream mid-line. Start from now.
    await new Promise<void>((resolve) => port.flush(() => resolve()));
    return wrap(path, port);
  },
  exists: (path) => portExists(path, process.platform, { access, list: () => SerialPort.list(), tryOpen }),
};

export interface PortProbe {
  access(path: string): Promise<void>;
  list(): Promise<Array<{ path: string }>>;
  /** Opens and closes the port at once; rejects with serialport's error. */
  tryOpen(path: string): Promise<void>;
}

/**
 * Whether a serial port is there. On Linux and macOS a port is a file under /dev. On Windows it
 * is not (COM10 is no file, and checking "COM7" looks for a file of that name in the working
 * folder), so the system's list is asked, and for a port it does not list (virtual pairs such
 * as com0com) an open is tried: a port another program holds ("Access denied") is there too.
 */
export async function portExists(given: string, platform: NodeJS.Platform, probe: PortProbe): Promise<boolean> {
  const path = normalizePortPath(given, platform);
  if (platform !== 'win32') {
    try {
      await probe.access(path);
      return true;
    } catch {
      return false;
    }
  }
  const key = portKey(path, platform);
  if ((await probe.list().catch(() => [])).some((p) => portKey(p.path, platform) === key)) return true;
  try {
    await probe.tryOpen(path);
    return true;
  } catch (err) {
    return /Access denied/i.test((err as Error).message);
  }
}

function tryOpen(path: string): Promise<void> {
  const port = new SerialPort({ path, baudRate: 9600, autoOpen: false });
  return new Promise((resolve, reject) => port.open((err) => (err ? reject(err) : port.close(() => resolve()))));
}

function wrap(path: string, port: SerialPort): ByteLink {
  return {
    path,
    onData(cb) {
      port.on('data', cb);
      return () => port.off('data', cb);
    },
    onClose(cb) {
      const h = (err: (Error & { disconnected?: boolean }) | null) => cb({ disconnected: Boolean(err?.disconnected), error: err ?? null });
      // A read error that serialport does not classify as a disconnect arrives as 'error' and
      // leaves the port half-open: for the core the line is gone either way.
      const e = (err: Error) => cb({ disconnected: false, error: err });
      port.on('close', h);
      port.on('error', e);
      return () => {
        port.off('close', h);
        port.off('error', e);
      };
    },
    write: (data) =>
      new Promise((resolve, reject) => {
        port.write(data, (err) => (err ? reject(new CoreError('Disconnected', `Could not write to ${path}: ${err.message}`)) : port.drain((e) => (e ? reject(e) : resolve()))));
      }),
    setBaudRate: (baudRate) => new Promise((resolve, reject) => port.update({ baudRate }, (err) => (err ? reject(err) : resolve()))),
    close: () =>
      new Promise((resolve) => {
        if (!port.isOpen) return resolve();
        port.close(() => resolve());
      }),
  };
}

/** What the real opener looks at when a port will not open: this machine, its port list, what this process saw listed. */
function openFailureContext() {
  return {
    platform: process.platform,
    system: process.platform === 'linux' ? linuxPortSystem() : null,
    list: () => serialportLister.list(),
    lastSerialAt: (path: string) => seenPorts.serialAt(path),
    pid: process.pid,
  };
}
