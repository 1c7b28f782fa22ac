import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src-main/core/log.js';
import type { SerialOpener } from '../../../src-main/core/serial/byte-link.js';
import { describePorts } from '../../../src-main/core/serial/port-lister.js';
import { normalizePortPath, portKey } from '../../../src-main/core/serial/port-names.js';
import { PortRegistry } from '../../../src-main/core/serial/port-registry.js';
import { openError, portExists, type PortProbe } from '../../../src-main/core/serial/serialport-opener.js';
import { MAC_LIST, WINDOWS_LIST } from './serialport-list-fixtures.js';

async function registry(platform: NodeJS.Platform, raw: typeof WINDOWS_LIST, exists: (p: string) => boolean) {
  let listed = describePorts(raw, platform);
  const opener: SerialOpener = { open: async () => { throw new Error('not used'); }, exists: async (p) => exists(p) };
  const dir = await mkdtemp(join(tmpdir(), 'cd-ports-os-'));
  const make = () => new PortRegistry(dir, { list: async () => listed }, opener, silentLogger, platform);
  const reg = make();
  await reg.refresh();
  return { reg, make, dir, replug: (next: typeof WINDOWS_LIST) => (listed = describePorts(next, platform)) };
}

describe('serial ports on Windows', () => {
  it("shows Windows' friendly names, in COM order, and no socket-bound instance id as a serial number", () => {
    const ports = describePorts(WINDOWS_LIST, 'win32');
    expect(ports.map((p) => p.path)).toEqual(['COM1', 'COM7', 'COM10', 'COM14']);
    expect(ports.map((p) => p.friendlyName)).toEqual(['Communications Port (COM1)', 'USB-SERIAL CH340 (COM7)', 'Arduino Uno (COM10)', 'USB Serial Port (COM14)']);
    const ch340 = ports.find((p) => p.path === 'COM7')!;
    expect(ch340).toEqual({ path: 'COM7', friendlyName: 'USB-SERIAL CH340 (COM7)', manufacturer: 'wch.cn', vendorId: '1a86', productId: '7523', board: 'CH340 USB–serial bridge' });
    expect(ports.find((p) => p.path === 'COM14')!.serialNumber).toBe('AI069HNC');
    expect(ports.find((p) => p.path === 'COM10')!.serialNumber).toBe('75833353934351B05281');
  });

  it('takes port names as Windows users write them', () => {
    expect(normalizePortPath('com3', 'win32')).toBe('COM3');
    expect(normalizePortPath(' COM10 ', 'win32')).toBe('COM10');
    // serialport prepends \\.\ itself; a typed prefix would be doubled.
    expect(normalizePortPath('\\\\.\\COM10', 'win32')).toBe('COM10');
    expect(normalizePortPath('//./com12', 'win32')).toBe('COM12');
    expect(normalizePortPath('\\\\.\\CNCA0', 'win32')).toBe('CNCA0');
    // Elsewhere a path is a path.
    expect(normalizePortPath('/dev/ttyACM0', 'linux')).toBe('/dev/ttyACM0');
    expect(portKey('com3', 'win32')).toBe(portKey('\\\\.\\COM3', 'win32'));
    expect(portKey('/dev/ttyacm0', 'linux')).not.toBe(portKey('/dev/ttyACM0', 'linux'));
  });

  it('finds a listed port under any spelling, without listing it twice', async () => {
    const { reg } = await registry('win32', WINDOWS_LIST, () => true);
    const added = await reg.addPath('com7');
    expect(added.path).toBe('COM7');
    expect(added.friendlyName).toBe('USB-SERIAL CH340 (COM7)');
    expect(reg.ports().filter((p) => p.path.toUpperCase() === 'COM7')).toHaveLength(1);
    expect(reg.find('\\\\.\\com7')?.path).toBe('COM7');
  });

  it('remembers an unlisted virtual port by its name and forgets it under any spelling', async () => {
    const { reg, make } = await registry('win32', WINDOWS_LIST, (p) => p === 'COM20');
    await expect(reg.addPath('COM21')).rejects.toThrow(/Nothing at COM21.*COM7/);
    expect((await reg.addPath('\\\\.\\com20')).path).toBe('COM20');
    const again = make();
    await again.load();
    await again.refresh();
    expect(again.ports().map((p) => p.path)).toContain('COM20');
    await again.removePath('com20');
    expect(again.ports().map((p) => p.path)).not.toContain('COM20');
  });

  it('keeps settings per board: by serial number when it has one, else by COM port in any case', async () => {
    const { reg, replug, dir } = await registry('win32', WINDOWS_LIST, () => true);
    await reg.saveSettings('COM10', { baudRate: 921600 });
    await reg.saveSettings('com7', { baudRate: 57600 });
    expect(reg.settingsFor('COM7').baudRate).toBe(57600);
    // The Uno moves to another socket and Windows gives it COM11: its settings follow it.
    replug(WINDOWS_LIST.map((p) => (p.path === 'COM10' ? { ...p, path: 'COM11', friendlyName: 'Arduino Uno (COM11)' } : p)));
    await reg.refresh();
    expect(reg.settingsFor('COM11').baudRate).toBe(921600);
    // The CH340 has no serial number: a socket-bound id must not pose as one.
    const saved = JSON.parse(await readFile(join(dir, 'serial-ports.json'), 'utf8')) as { settings: Record<string, unknown> };
    expect(Object.keys(saved.settings).sort()).toEqual(['path:COM7', 'sn:75833353934351B05281']);
  });

  it('asks the system list, then an open, never a file of that name, whether a port is there', async () => {
    const calls: string[] = [];
    const probe = (answer: 'ok' | 'busy' | 'missing'): PortProbe => ({
      access: async (p) => { calls.push(`access ${p}`); },
      list: async () => WINDOWS_LIST,
      tryOpen: async (p) => {
        calls.push(`open ${p}`);
        if (answer === 'busy') throw new Error(`Opening ${p}: Access denied`);
        if (answer === 'missing') throw new Error(`Opening ${p}: File not found`);
      },
    });
    expect(await portExists('com7', 'win32', probe('missing'))).toBe(true); // listed: no open needed
    expect(await portExists('\\\\.\\COM20', 'win32', probe('ok'))).toBe(true);
    expect(await portExists('COM21', 'win32', probe('busy'))).toBe(true);
    expect(await portExists('COM22', 'win32', probe('missing'))).toBe(false);
    expect(calls).toEqual(['open COM20', 'open COM21', 'open COM22']);
    // Negative control: on Linux and macOS a port is a device file.
    calls.length = 0;
    expect(await portExists('/dev/ttyACM0', 'linux', probe('missing'))).toBe(true);
    expect(calls).toEqual(['access /dev/ttyACM0']);
  });

  it("turns Windows' open errors into ones a user can act on", () => {
    expect(openError('COM7', new Error('Opening COM7: Access denied'), 'win32')).toMatchObject({ code: 'Busy' });
    expect(openError('COM7', new Error('Opening COM7: File not found'), 'win32')).toMatchObject({ code: 'NotFound' });
  });
});

describe('serial ports on macOS', () => {
  it('lists boards only, not the Bluetooth service or debug console every Mac has', () => {
    const ports = describePorts(MAC_LIST, 'darwin');
    expect(ports.map((p) => p.path)).toEqual(['/dev/tty.usbmodem1421', '/dev/tty.usbserial-0001']);
    expect(ports[0]!.friendlyName).toBe('Arduino (www.arduino.cc) (/dev/tty.usbmodem1421)');
    // Negative control: Linux lists what it lists.
    expect(describePorts(MAC_LIST, 'linux')).toHaveLength(4);
  });

  it('takes /dev/cu.X, as the Arduino IDE shows it, as the listed /dev/tty.X board', async () => {
    const { reg } = await registry('darwin', MAC_LIST, () => true);
    const added = await reg.addPath('/dev/cu.usbmodem1421');
    expect(added.path).toBe('/dev/tty.usbmodem1421');
    expect(reg.ports().map((p) => p.path)).toEqual(['/dev/tty.usbmodem1421', '/dev/tty.usbserial-0001']);
    await reg.saveSettings('/dev/cu.usbserial-0001', { baudRate: 230400 });
    expect(reg.settingsFor('/dev/tty.usbserial-0001').baudRate).toBe(230400);
  });

  it('opens an unlisted cu.X port as typed', async () => {
    const { reg } = await registry('darwin', [], () => true);
    expect((await reg.addPath('/dev/cu.usbserial-A50285BI')).path).toBe('/dev/cu.usbserial-A50285BI');
  });

  it('says "in use" when another program holds the lock', () => {
    expect(openError('/dev/tty.usbmodem1421', new Error('Error Resource temporarily unavailable Cannot lock port'), 'darwin')).toMatchObject({ code: 'Busy' });
    const denied = openError('/dev/tty.usbmodem1421', new Error('Error: Permission denied, cannot open /dev/tty.usbmodem1421'), 'darwin');
    expect(denied).toMatchObject({ code: 'PermissionDenied' });
    expect(denied.message).not.toContain('dialout');
  });
});
