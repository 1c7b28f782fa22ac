/**
 * How each OS names serial ports, and which spellings name the same one.
 *
 * Windows: `COM3`, any case. serialport 13 prepends `\\.\` itself before CreateFile (needed from
 * COM10 up), copying only the first 10 characters of the path, so a user who types the prefix
 * (`\\.\COM10`, as Windows documentation writes it) must have it taken off again.
 *
 * macOS: each port has a dial-in node `/dev/tty.X` and a call-out node `/dev/cu.X`. serialport 13
 * lists the tty.X node and opens it non-blocking (so it does not wait for a carrier) with an
 * exclusive lock; serialport moved its list from cu.X to tty.X because cu.X nodes could not be
 * locked (node-serialport#1070, #1084). So the listed tty.X is what we open, and a cu.X the user
 * types (as the Arduino IDE shows it) is taken as the same board rather than shown twice.
 */

const WINDOWS_DEVICE_PREFIX = /^(\\\\|\/\/)[.?][\\/]/;

/** The path to hand to serialport for what the user typed or the system listed. */
export function normalizePortPath(input: string, platform: NodeJS.Platform = process.platform): string {
  const p = input.trim();
  if (platform !== 'win32') return p;
  const bare = p.replace(WINDOWS_DEVICE_PREFIX, '');
  return /^com\d+$/i.test(bare) ? bare.toUpperCase() : bare;
}

/** One key per physical port, whatever spelling named it. */
export function portKey(path: string, platform: NodeJS.Platform = process.platform): string {
  const p = normalizePortPath(path, platform);
  if (platform === 'win32') return p.toUpperCase(); // device names are case-insensitive there
  if (platform === 'darwin') return p.replace(/^\/dev\/cu\./, '/dev/tty.');
  return p;
}

/** COM2 before COM10, ttyACM2 before ttyACM10: the order a person reads them in. */
export function comparePortPaths(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true, sensitivity: 'base' });
}

/**
 * Windows invents an instance id such as `5&2A4A2E0E&0&2` for a USB device with no serial number
 * (CH340 boards) and serialport reports it as the serial number. It belongs to the USB socket,
 * not the board, so it must not be taken as the board's identity.
 */
export function isRealSerialNumber(sn: string | undefined): sn is string {
  return typeof sn === 'string' && sn.trim() !== '' && !sn.includes('&');
}
