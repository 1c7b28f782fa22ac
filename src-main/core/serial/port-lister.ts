import type { SerialPortInfo } from '../contract.js';

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

/** "Arduino LLC (/dev/ttyACM0)" reads better in a device list than a bare path. */
export function describePort(raw: RawPortInfo): SerialPortInfo {
  const label = raw.friendlyName ?? raw.manufacturer ?? (raw.vendorId ? `USB ${raw.vendorId}:${raw.productId ?? '?'}` : 'Serial port');
  const info: SerialPortInfo = { path: raw.path, friendlyName: label.includes(raw.path) ? label : `${label} (${raw.path})` };
  if (raw.manufacturer) info.manufacturer = raw.manufacturer;
  if (raw.serialNumber) info.serialNumber = raw.serialNumber;
  if (raw.vendorId) info.vendorId = raw.vendorId.toLowerCase();
  if (raw.productId) info.productId = raw.productId.toLowerCase();
  return info;
}
