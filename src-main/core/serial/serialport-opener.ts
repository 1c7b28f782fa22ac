import { access } from 'node:fs/promises';
import { SerialPort } from 'serialport';
import { CoreError } from '../errors.js';
import type { ByteLink, SerialOpener } from './byte-link.js';

const UDEV_HINT = 'or install the udev rule in resources/linux/99-capture-desk.rules (see the README)';

/** Opens ports with node-serialport and turns its errors into ones a lab user can act on. */
export const serialportOpener: SerialOpener = {
  async open(path, baudRate) {
    const port = new SerialPort({ path, baudRate, autoOpen: false });
    await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(openError(path, err)) : resolve())));
    // Whatever the OS buffered before we opened is from an unknown time: it would arrive as one
    // burst, skew the rate estimate and start the stream mid-line. Start from now.
    await new Promise<void>((resolve) => port.flush(() => resolve()));
    return wrap(path, port);
  },
  async exists(path) {
    try {
      await access(path);
      return true;
    } catch {
      return false;
    }
  },
};

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

export function openError(path: string, err: Error): CoreError {
  const m = err.message;
  if (/EACCES|Permission denied/i.test(m)) {
    const fix =
      process.platform === 'linux'
        ? ` Join the dialout group (sudo usermod -aG dialout $USER, then log out and in) ${UDEV_HINT}.`
        : ' Check that no other program holds the port and that you may use it.';
    return new CoreError('PermissionDenied', `Permission denied opening ${path}.${fix}`, { path });
  }
  if (/ENOENT|No such file|cannot open|File not found/i.test(m)) {
    return new CoreError('NotFound', `No serial port at ${path}. Is the board plugged in? Pick it from the device list or check the path.`, { path });
  }
  if (/EBUSY|Resource busy|locked|Access denied/i.test(m)) {
    return new CoreError('Busy', `${path} is in use by another program (a serial monitor, the Arduino IDE, another Capture Desk?). Close it and try again.`, { path });
  }
  return new CoreError('Unavailable', `Could not open ${path}: ${m}`, { path });
}
