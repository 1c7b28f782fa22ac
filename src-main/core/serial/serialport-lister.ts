import { SerialPort } from 'serialport';
import { CoreError } from '../errors.js';
import { describePorts, type PortLister } from './port-lister.js';
import { seenPorts } from './seen-ports.js';

/** The real port lister. On Linux it needs udevadm; pseudo-terminals never show up here. */
export const serialportLister: PortLister = {
  async list() {
    try {
      const ports = describePorts(await SerialPort.list());
      seenPorts.remember(ports);
      return ports;
    } catch (err) {
      throw new CoreError(
        'Unavailable',
        `Could not list serial ports: ${(err as Error).message}. On Linux, install udev (udevadm) or open the port by its path.`,
      );
    }
  },
};
