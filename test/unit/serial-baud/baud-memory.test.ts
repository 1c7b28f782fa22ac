import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BaudMemory, boardKey } from '../../../src-main/core/serial/baud/baud-memory.js';

const quiet = { info() {}, warn() {}, error() {} };

describe('remembered baud rates', () => {
  it('knows a board by its USB serial number, else by vendor:product and path, else by path', () => {
    expect(boardKey('/dev/ttyACM0', { serialNumber: 'A1B2', vendorId: '2341', productId: '0043' }, 'linux')).toBe('sn:A1B2');
    expect(boardKey('/dev/ttyUSB0', { serialNumber: '5&2A4A2E0E&0&2', vendorId: '1A86', productId: '7523' }, 'linux')).toBe('usb:1a86:7523@/dev/ttyUSB0');
    expect(boardKey('com3', undefined, 'win32')).toBe('path:COM3');
  });

  it('keeps a rate found in the data folder, for the same board on another socket', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cd-baud-'));
    const boards: Record<string, { serialNumber: string }> = { '/dev/ttyACM0': { serialNumber: 'X1' }, '/dev/ttyACM1': { serialNumber: 'X1' } };
    const m = await BaudMemory.open(dir, async (p) => boards[p], quiet);
    expect(await m.recall('/dev/ttyACM0')).toBeNull();
    await m.remember('/dev/ttyACM0', 57_600);
    const again = await BaudMemory.open(dir, async (p) => boards[p], quiet);
    expect(await again.recall('/dev/ttyACM1')).toBe(57_600);
    expect(JSON.parse(await readFile(join(dir, 'baud-rates.json'), 'utf8'))).toEqual({ rates: { 'sn:X1': 57_600 } });
  });

  it('falls back to the path when the system cannot list ports', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cd-baud-'));
    const m = await BaudMemory.open(dir, async () => { throw new Error('udevadm: not found'); }, quiet);
    await m.remember('/tmp/pty/host', 9_600);
    expect(await m.recall('/tmp/pty/host')).toBe(9_600);
  });
});
