import type { SerialPortInfo } from '../contract/contract.js';
import { CoreError } from '../errors.js';
import type { PortSystem } from './port-holders.js';
import { portKey } from './port-names.js';
import { openError } from './open-error.js';

export const UDEV_RULE = 'resources/linux/99-capture-desk.rules';
const MANUAL = 'the manual page "Serial permissions on Linux"';

export interface OpenFailureContext {
  platform: NodeJS.Platform;
  /** Linux only: who holds the port, who may open it. */
  system: PortSystem | null;
  /** The system's ports now (for a board that moved to another path). */
  list(): Promise<SerialPortInfo[]>;
  /** The serial number of the board last seen at this path, if any listing saw one. */
  lastSerialAt(path: string): string | undefined;
  /** This process's id: a port it holds itself is said so, not blamed on "another program". */
  pid: number;
}

/**
 * openError's sentence, made specific by looking at the system: whose group the device is in and
 * the command that lets this user in; which program holds it (ModemManager named with the udev
 * rule that keeps it away); where a board that was unplugged and came back now is. Looking can
 * fail in any part: the general sentence stays, nothing is hidden.
 */
export async function explainOpenError(path: string, err: Error, ctx: OpenFailureContext): Promise<CoreError> {
  const base = openError(path, err, ctx.platform);
  try {
    if (base.code === 'PermissionDenied' && ctx.system) return (await permission(path, ctx.system)) ?? base;
    if (base.code === 'Busy' && ctx.system) return (await busy(path, ctx.system, ctx.pid)) ?? base;
    if (base.code === 'NotFound') return (await gone(path, ctx)) ?? base;
  } catch {
    // What could not be looked at leaves the general sentence, which is still true.
  }
  return base;
}

async function permission(path: string, sys: PortSystem): Promise<CoreError | null> {
  const a = await sys.access(path);
  if (!a?.group) return null;
  const user = sys.userName();
  const details = { path, group: a.group };
  const rw = (a.mode & 0o060) === 0o060;
  if (!rw || a.group === 'root') {
    return new CoreError('PermissionDenied', `Permission denied opening ${path}: it belongs to group "${a.group}" with mode ${modeText(a.mode)}, which lets no group member open it. Install the udev rule in ${UDEV_RULE} (see ${MANUAL}), then unplug and replug the board.`, details);
  }
  if (user && a.members.includes(user) && !sys.ownGroups().includes(a.gid)) {
    return new CoreError('PermissionDenied', `Permission denied opening ${path}: you were added to its group "${a.group}", but this session started before that. Log out and in again (or run "newgrp ${a.group}" in this terminal).`, details);
  }
  return new CoreError('PermissionDenied', `Permission denied opening ${path}: it belongs to group "${a.group}", which you are not in. Run: sudo usermod -aG ${a.group} $USER, then log out and in; or install the udev rule in ${UDEV_RULE} (see ${MANUAL}).`, details);
}

async function busy(path: string, sys: PortSystem, ownPid: number): Promise<CoreError | null> {
  const holders = await sys.holders(path);
  if (holders.length === 0) return null;
  const details = { path, heldBy: holders };
  if (holders.some((h) => h.pid === ownPid)) {
    return new CoreError('Busy', `${path} is already open in this Capture Desk (a live view or a recording uses it). Stop that first, or record from the live view.`, details);
  }
  const mm = holders.find((h) => /^ModemManager$/i.test(h.name));
  if (mm) {
    return new CoreError('Busy', `${path} is held by ModemManager (pid ${mm.pid}), which probes a newly plugged board as if it were a modem for a few seconds. Wait a moment and try again; to keep it away for good, install the udev rule in ${UDEV_RULE} (it sets ENV{ID_MM_DEVICE_IGNORE}="1"; see ${MANUAL}).`, details);
  }
  const who = holders.map((h) => `${h.name} (pid ${h.pid})`).join(', ');
  return new CoreError('Busy', `${path} is held by ${who}. Close that program (or its serial monitor) and try again.`, details);
}

async function gone(path: string, ctx: OpenFailureContext): Promise<CoreError | null> {
  const ports = await ctx.list();
  const key = portKey(path, ctx.platform);
  const others = ports.filter((p) => portKey(p.path, ctx.platform) !== key);
  const serial = ctx.lastSerialAt(path);
  const moved = serial ? others.find((p) => p.serialNumber === serial) : undefined;
  if (moved) {
    return new CoreError('NotFound', `No serial port at ${path} any more: the same board (serial number ${serial}) is now at ${moved.path}. Open ${moved.path} instead.`, { path, movedTo: moved.path });
  }
  const boards = others.filter((p) => p.vendorId);
  if (boards.length === 0) return null;
  const list = boards.map((p) => `${p.path}${p.board ? ` (${p.board})` : ''}`).join(', ');
  return new CoreError('NotFound', `No serial port at ${path}. Is the board plugged in? ${boards.length === 1 ? 'A board is' : 'Boards are'} at ${list}${boards.length === 1 ? `: open ${boards[0]!.path} if it is the one` : ''}.`, { path, boards: boards.map((p) => p.path) });
}

function modeText(mode: number): string {
  const bits = 'rwxrwxrwx';
  return 'c' + [...bits].map((c, i) => (mode & (1 << (8 - i)) ? c : '-')).join('');
}
