import { systemClock } from '../core/clock.js';
import { defaultDataDir } from '../core/data-dir.js';
import type { SerialPortInfo } from '../core/contract/contract.js';
import { VendorNames } from '../core/serial/boards/vendor-names.js';
import { normalizePortPath, portKey } from '../core/serial/port-names.js';
import { probePort, type PortProbe } from '../core/serial/port-probe.js';
import { serialportLister } from '../core/serial/serialport-lister.js';
import { serialportOpener } from '../core/serial/serialport-opener.js';
import { booleans, parseCommand } from './flags.js';
import { commandLogger } from './command-log.js';
import { openBaudMemory } from './serial-bauds.js';
import { UsageError } from './args.js';

export const DEVICES_SERIAL_USAGE = `Usage: capture-desk devices serial [--probe] [--port PATH ...] [--json]

Lists the system's serial ports, and each --port given (pseudo-terminals and Bluetooth ports are
never listed by the system): its path, name (the maker as the device names itself, else as usb.ids
names its vendor), the board its USB id says it is (or its USB–serial bridge chip), the USB vendor
and product id and serial number. With --probe each port is opened (all at once, at most 5 s each)
and read: the baud rate found from what the board prints (the rate remembered for the board is
tried first, as record serial does), what it speaks, its axes and rate, or what is wrong.

Options:
  --probe         open each port and say what the board on it sends
  --port PATH     a port to include (repeat for more), e.g. /dev/ttyACM0, COM5, /dev/pts/3
  --data-dir DIR  where found baud rates are remembered (default: ${defaultDataDir()})
  --json          one JSON object per line: {"path","name","board","vendor_id","product_id",
                  "serial_number"} and with --probe also "baud","protocol" (lines, at, nordic
                  or null),"axes","frequency_hz","problem"; null where unknown
  --verbose       also write the log (one JSON line per event) to stderr
  -h, --help      show this help
`;

interface PortLine {
  path: string;
  name: string | null;
  board: string | null;
  vendor_id: string | null;
  product_id: string | null;
  serial_number: string | null;
}

type ProbedLine = PortLine & { baud: number | null; protocol: PortProbe['protocol']; axes: number | null; frequency_hz: number | null; problem: string | null };

export async function devicesSerialCommand(argv: string[]): Promise<number> {
  const parsed = parseCommand(argv, DEVICES_SERIAL_USAGE, { ...booleans('json', 'probe', 'verbose'), port: { type: 'string', multiple: true }, 'data-dir': { type: 'string' } }, { positionals: true });
  if (!parsed) return 0;
  const { values: v, positionals } = parsed;
  if (positionals.length > 1 || (positionals[0] !== undefined && positionals[0] !== 'serial')) throw new UsageError(`unexpected argument "${positionals.join(' ')}".`);
  const given = ((v.port as string[] | undefined) ?? []).map((p) => {
    if (p.trim() === '') throw new UsageError('--port needs a path, e.g. /dev/ttyACM0.');
    return normalizePortPath(p);
  });

  let code = 0;
  let listed: SerialPortInfo[] = [];
  try {
    listed = await serialportLister.list();
  } catch (err) {
    // The ports given by path can still be shown and probed; the run says it is not the whole list.
    process.stderr.write(`${(err as Error).message}\n`);
    code = 1;
  }
  const keys = new Set(listed.map((p) => portKey(p.path)));
  const ports = [...listed, ...given.filter((p, i) => !keys.has(portKey(p)) && given.findIndex((q) => portKey(q) === portKey(p)) === i).map((path) => ({ path, friendlyName: path }))];
  if (ports.length === 0) {
    process.stderr.write('No serial ports found. Plug a board in, or name a port with --port PATH.\n');
    return code;
  }
  const vendors = new VendorNames();
  const lines = await Promise.all(ports.map(async (p) => portLine(p, vendors)));
  // Rates found are remembered per board as a recording remembers them (a data folder that does
  // not exist yet is not made for this: a rate that cannot be saved is only not remembered).
  // A rate that cannot be remembered is said in the log (--verbose), never as the port's problem.
  const log = commandLogger('devices serial', Boolean(v.verbose));
  const bauds = v.probe ? await openBaudMemory((v['data-dir'] as string | undefined) ?? defaultDataDir(), log, listed) : undefined;
  const out: Array<PortLine | ProbedLine> = v.probe
    ? await Promise.all(lines.map(async (l) => ({ ...l, ...probeFields(await probePort(l.path, { opener: serialportOpener, clock: systemClock, bauds, log })) })))
    : lines;
  for (const l of out) process.stdout.write(v.json ? JSON.stringify(l) + '\n' : readable(l));
  return code;
}

/**
 * The maker as the device names itself (its USB descriptor), else as usb.ids or our table names
 * the vendor. A device with no maker string (CH340s) gets its vendor id from udev in its place.
 */
async function portLine(p: SerialPortInfo, vendors: VendorNames): Promise<PortLine> {
  const maker = p.manufacturer && p.manufacturer.toLowerCase() !== p.vendorId ? p.manufacturer : null;
  return {
    path: p.path,
    name: maker ?? (await vendors.name(p.vendorId)),
    board: p.board ?? null,
    vendor_id: p.vendorId ?? null,
    product_id: p.productId ?? null,
    serial_number: p.serialNumber ?? null,
  };
}

function probeFields(p: PortProbe) {
  return { baud: p.baud, protocol: p.protocol, axes: p.axes, frequency_hz: p.frequencyHz, problem: p.problem };
}

/** "/dev/ttyACM0  Arduino Nano 33 BLE  2341:805a  serial ABC123", then what the probe found. */
function readable(l: PortLine | ProbedLine): string {
  const what = [l.board ?? l.name ?? 'unknown device', l.board && l.name ? `(${l.name})` : null, l.vendor_id ? `${l.vendor_id}:${l.product_id ?? '?'}` : null, l.serial_number ? `serial ${l.serial_number}` : null];
  let text = `${l.path}  ${what.filter(Boolean).join('  ')}\n`;
  if ('protocol' in l) {
    const found = [
      l.protocol === 'lines' ? 'numbers per line' : l.protocol === 'nordic' ? "Nordic data forwarder" : l.protocol === 'at' ? "the platform's firmware (AT)" : null,
      l.axes !== null ? `${l.axes} ${l.axes === 1 ? 'axis' : 'axes'}` : null,
      l.frequency_hz !== null ? `${l.frequency_hz} Hz` : null,
      l.baud !== null ? `${l.baud} baud` : null,
    ].filter(Boolean);
    if (found.length) text += `    ${found.join(' · ')}\n`;
    if (l.problem) text += `    ${l.problem}\n`;
  }
  return text;
}
