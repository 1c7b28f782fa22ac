import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { RemoteSensor } from '../contract/remote-schema.js';

/** What a device that is neither an official board nor anything with a name of its own says it is. */
export const CAPTURE_DESK_DEVICE_TYPE = 'CAPTURE_DESK';

/** The platform takes at most 100 MB per file: a take longer than that could never be uploaded. */
const MAX_FILE_BYTES = 100 * 1024 * 1024;
/** Longest take we offer whatever the size: an hour (recordings stream to disk, memory stays flat). */
const MAX_TAKE_S = 3600;

/**
 * This computer, stably: systemd's machine id (survives host renames) else the host name. Only
 * ever used hashed.
 */
export function machineKey(): string {
  for (const file of ['/etc/machine-id', '/var/lib/dbus/machine-id']) {
    try {
      const id = readFileSync(file, 'utf8').trim();
      if (id) return id;
    } catch {
      // not Linux, or no machine id: the host name below
    }
  }
  return hostname();
}

/**
 * A device id for a source that has none of its own (no USB serial number, not an official board):
 * derived from this computer and the port path or microphone id, so it is the same after a restart
 * or re-plugging into the same port, and different per computer. Shaped like the MAC addresses the
 * platform's own clients send. Never derived from a key.
 */
export function derivedDeviceId(machine: string, sourceKey: string): string {
  const h = createHash('sha256').update(`capture-desk\n${machine}\n${sourceKey}`).digest();
  // Locally administered, unicast (like a MAC nobody manufactured).
  h[0] = (h[0]! & 0xfc) | 0x02;
  return [...h.subarray(0, 6)].map((b) => b.toString(16).padStart(2, '0')).join(':');
}

/** A USB board's serial number as a device id: printable, no spaces (the platform shows it in URLs). */
export function serialNumberDeviceId(serialNumber: string): string | null {
  const clean = serialNumber.trim().replace(/[^\x21-\x7e]/g, '');
  return clean.length >= 4 ? clean : null;
}

/** As the platform's data forwarder names a numeric-line board's sensor. */
export function linesSensor(axes: string[], frequencyHz: number): RemoteSensor {
  const valueBytes = 9; // a CBOR float64, the widest a value is stored as
  const bytesPerS = frequencyHz * (axes.length * valueBytes + 2);
  return {
    name: `Sensor with ${axes.length} ${axes.length === 1 ? 'axis' : 'axes'} (${axes.join(', ')})`,
    maxSampleLengthS: Math.max(1, Math.min(MAX_TAKE_S, Math.floor(MAX_FILE_BYTES / bytesPerS))),
    frequencies: [roundHz(frequencyHz)],
  };
}

/** As the platform's Linux client names a microphone: 16-bit mono WAV at the capture's rate. */
export function microphoneSensor(sampleRate: number): RemoteSensor {
  return { name: 'Microphone', maxSampleLengthS: Math.max(1, Math.min(MAX_TAKE_S, Math.floor(MAX_FILE_BYTES / (sampleRate * 2)))), frequencies: [sampleRate] };
}

/** A measured rate to three decimals (the platform shows it; 99.9987 Hz reads better as 99.999). */
function roundHz(hz: number): number {
  return Math.round(hz * 1000) / 1000;
}
