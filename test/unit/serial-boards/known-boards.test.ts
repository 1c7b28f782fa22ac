import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KNOWN_IDS, knownBoard } from '../../../src-main/core/serial/boards/known-boards.js';
import { parseUsbIdVendors, VendorNames } from '../../../src-main/core/serial/boards/vendor-names.js';
import { describePorts } from '../../../src-main/core/serial/port-lister.js';
import { MAC_LIST, WINDOWS_LIST } from '../paths/serialport-list-fixtures.js';

describe('boards known by their USB id', () => {
  it('names real boards by the ids their board packages declare', () => {
    // ArduinoCore-mbed boards.txt: nano33ble.pid.1=0x805a; ArduinoCore-avr: uno.pid.0=0x0043.
    expect(knownBoard('2341', '805a')?.name).toBe('Arduino Nano 33 BLE');
    expect(knownBoard('2341', '0043')?.name).toBe('Arduino Uno');
    expect(knownBoard('2A03', '0043')?.name).toBe('Arduino Uno'); // arduino.org's vendor id, upper case as Windows gives it
    expect(knownBoard('2341', '025f')?.name).toBe('Arduino Nicla Vision');
    expect(knownBoard('2341', '0068')?.name).toBe('Arduino Portenta C33');
    expect(knownBoard('2e8a', '000a')?.name).toBe('Raspberry Pi Pico (RP2040)');
    expect(knownBoard('2886', '802f')?.name).toBe('Seeed XIAO SAMD21');
    expect(knownBoard('16c0', '0483')?.name).toBe('Teensy (USB serial)');
    expect(knownBoard('303a', '1001')?.name).toBe('Espressif ESP32-S3/C3 (USB-Serial/JTAG)');
    expect(knownBoard('1366', '1015')?.name).toBe('Nordic DK (SEGGER J-Link OB)');
    // ArduinoCore-megaavr: nona4809.pid.0=0x0058, uno2018.vid.0=0x03eb/pid 0x2145; ArduinoCore-sam: arduino_due_x(_dbg).
    expect(knownBoard('2341', '0058')?.name).toBe('Arduino Nano Every');
    expect(knownBoard('03eb', '2145')?.name).toBe('Arduino Uno WiFi Rev2');
    expect(knownBoard('2341', '003d')?.name).toBe('Arduino Due (programming port)');
    expect(knownBoard('2a03', '003e')?.name).toBe('Arduino Due (native USB port)');
  });

  it('names the bridge chip when the id is a USB–serial bridge, and says so', () => {
    expect(knownBoard('10c4', 'ea60')).toMatchObject({ name: 'CP2102 USB–serial bridge', kind: 'bridge' });
    expect(knownBoard('1a86', '7523')).toMatchObject({ name: 'CH340 USB–serial bridge', kind: 'bridge' });
    expect(knownBoard('1a86', '55d4')).toMatchObject({ name: 'CH9102 USB–serial bridge', kind: 'bridge' });
    expect(knownBoard('0403', '6001')).toMatchObject({ name: 'FT232R USB–serial bridge', kind: 'bridge' });
  });

  it('falls back to the vendor\'s boards for an unlisted product, and to nothing for an unknown vendor', () => {
    expect(knownBoard('239a', 'beef')?.name).toBe('Adafruit board');
    // Arduino's own vendor ids: a board newer than the table (or one it lacks) is still an Arduino.
    expect(knownBoard('2341', '0999')?.name).toBe('Arduino board');
    expect(knownBoard('2a03', '0999')?.name).toBe('Arduino board');
    expect(knownBoard('1a86', 'ffff')).toBeUndefined(); // WCH makes more than serial bridges: no guess
    expect(knownBoard('dead', 'beef')).toBeUndefined();
    expect(knownBoard(undefined, undefined)).toBeUndefined();
  });

  it('every line says where its id comes from, and no product id is claimed twice', () => {
    const seen = new Map<string, string>();
    for (const k of KNOWN_IDS) {
      expect(k.source, `${k.vendorId} ${k.name}`).toMatch(/\S+ \S+/);
      expect(k.vendorId).toMatch(/^[0-9a-f]{4}$/);
      if (k.productIds === '*') continue;
      for (const pid of k.productIds) {
        expect(pid).toMatch(/^[0-9a-f]{4}$/);
        const key = `${k.vendorId}:${pid}`;
        expect(seen.get(key), `${key} is both ${seen.get(key)} and ${k.name}`).toBeUndefined();
        seen.set(key, k.name);
      }
    }
  });

  it('the device list carries the board', () => {
    const win = describePorts(WINDOWS_LIST, 'win32');
    expect(win.find((p) => p.path === 'COM10')?.board).toBe('Arduino Uno');
    expect(win.find((p) => p.path === 'COM7')?.board).toBe('CH340 USB–serial bridge');
    expect(win.find((p) => p.path === 'COM1')?.board).toBeUndefined();
    expect(describePorts(MAC_LIST, 'darwin').find((p) => p.path === '/dev/tty.usbserial-0001')?.board).toBe('CP2102 USB–serial bridge');
  });
});

describe('vendor names', () => {
  it('reads usb.ids when the system has it, vendors only', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cd-usbids-'));
    const file = join(dir, 'usb.ids');
    await writeFile(file, '# comment\n2341  Arduino SA\n\t0043  Uno R3 (CDC ACM)\n10c4  Silicon Labs\n\tea60  CP210x UART Bridge\nC 00  (Defined at Interface level)\n');
    expect([...parseUsbIdVendors('2341  Arduino SA\n\t0043  Uno R3\n')]).toEqual([['2341', 'Arduino SA']]);
    const names = new VendorNames([join(dir, 'missing'), file]);
    expect(await names.name('2341')).toBe('Arduino SA');
    expect(await names.name('2E8A')).toBe('Raspberry Pi'); // not in that file: the table's
    expect(await names.name('abcd')).toBeNull();
  });

  it('without usb.ids, the table names the vendors it knows', async () => {
    const names = new VendorNames(['/nonexistent/usb.ids']);
    expect(await names.name('1a86')).toBe('QinHeng Electronics');
    expect(await names.name(undefined)).toBeNull();
  });
});
