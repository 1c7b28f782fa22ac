import type { SerialPortInfo } from '../contract/contract.js';
import { knownBoard } from './boards/known-boards.js';
import { comparePortPaths, isRealSerialNumber } from './port-names.js';

/** The hardware seam for port discovery: the real one wraps serialport, tests inject a list. */
export interface PortLister {
  list(): Promise<SerialPortInfo[]>;
}

export interface RawPortInfo {
  path: string;
  manufacturer?: string | undefined;
  serialNumber?: string | undefined;
  vendorId?: string | undefined;
  productId?: string | undefined;
  pnpId?: string | undefined;
  friendlyName?: string | undefined;
}

/**
 * "Arduino LLC (/dev/ttyACM0)" reads better in a device list than a bare path. Windows gives a
 * friendly name that already ends in the port ("USB-SERIAL CH340 (COM3)"); it is kept as it is.
 */
export function describePort(raw: RawPortInfo): SerialPortInfo {
  const label = raw.friendlyName?.trim() || raw.manufacturer?.trim() || (raw.vendorId ? `USB ${raw.vendorId}:${raw.productId ?? '?'}` : 'Serial port');
  const info: SerialPortInfo = { path: raw.path, friendlyName: label.toLowerCase().includes(raw.path.toLowerCase()) ? label : `${label} (${raw.path})` };
  if (raw.manufacturer) info.manufacturer = raw.manufacturer;
  if (isRealSerialNumber(raw.serialNumber)) info.serialNumber = raw.serialNumber;
  if (raw.vendorId) info.vendorId = raw.vendorId.toLowerCase();
  if (raw.productId) info.productId = raw.productId.toLowerCase();
  const board = knownBoard(raw.vendorId, raw.productId);
  if (board) info.board = board.name;
  return info;
}

/**
 * Ports every Mac lists that are never a board: the Bluetooth serial service waiting for a
 * phone, and the kernel's debug console. Shown, they are the first thing a user picks by mistake.
 */
const MAC_SYSTEM_PORTS = /^\/dev\/(tty|cu)\.(Bluetooth-Incoming-Port|debug-console)$/;

/** What the system lists, described and in reading order (COM2 before COM10). */
export function describePorts(raw: readonly RawPortInfo[], platform: NodeJS.Platform = process.platform): SerialPortInfo[] {
  const shown = platform === 'darwin' ? raw.filter((p) => !MAC_SYSTEM_PORTS.test(p.path)) : raw;
  return shown.map(describePort).sort((a, b) => comparePortPaths(a.path, b.path));
}
