import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SerialPortInfo } from '../../src-main/core/contract/contract.js';
import { silentLogger } from '../../src-main/core/log.js';
import type { SerialOpener } from '../../src-main/core/serial/byte-link.js';
import { PortRegistry } from '../../src-main/core/serial/port-registry.js';

function setup(dir: string) {
  let ports: SerialPortInfo[] = [];
  const lister = { list: async () => ports };
  const opener: SerialOpener = { open: async () => { throw new Error('not used'); }, exists: async (p) => p.startsWith('/tmp') || p === '/dev/pts/7' };
  const reg = new PortRegistry(dir, lister, opener, silentLogger);
  return { reg, setPorts: (p: SerialPortInfo[]) => (ports = p) };
}

const nano = (path: string): SerialPortInfo => ({ path, friendlyName: `Arduino (${path})`, serialNumber: 'NANO-42', vendorId: '2341' });

describe('PortRegistry', () => {
  it('notices boards plugged in and out while polling', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cd-ports-'));
    const { reg, setPorts } = setup(dir);
    const seen: string[][] = [];
    reg.watch(20, (ports) => seen.push(ports.map((p) => p.path)));
    setPorts([nano('/dev/ttyACM0')]);
    await new Promise((r) => setTimeout(r, 80));
    setPorts([]);
    await new Promise((r) => setTimeout(r, 80));
    reg.stop();
    expect(seen).toEqual([['/dev/ttyACM0'], []]);
  });

  it('remembers ports added by path and refuses paths with nothing behind them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cd-ports-'));
    const a = setup(dir);
    await a.reg.addPath('/dev/pts/7');
    await expect(a.reg.addPath('/dev/ttyNOPE')).rejects.toMatchObject({ code: 'NotFound' });
    const b = setup(dir);
    await b.reg.load();
    expect(b.reg.ports()).toEqual([{ path: '/dev/pts/7', friendlyName: '/dev/pts/7 (added by path)', addedByPath: true }]);
    await b.reg.removePath('/dev/pts/7');
    expect(b.reg.ports()).toEqual([]);
  });

  it('refuses a folder or a regular file given as a port (it stayed listed for good as "/tmp (added by path)")', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cd-ports-'));
    const file = join(dir, 'notes.txt');
    await writeFile(file, 'x');
    const { reg } = setup(dir);
    await expect(reg.addPath(dir)).rejects.toMatchObject({ code: 'InvalidArguments', message: `${dir} is a folder, not a serial port. Give the port's path (e.g. /dev/pts/3, /dev/rfcomm0).` });
    await expect(reg.addPath(file)).rejects.toThrow(`${file} is a regular file, not a serial port.`);
    expect(reg.ports()).toEqual([]);
    expect(reg.addedPaths()).toEqual([]);
  });

  it('keeps settings per board by USB serial number, whichever socket it is in', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cd-ports-'));
    const { reg, setPorts } = setup(dir);
    setPorts([nano('/dev/ttyACM0')]);
    await reg.refresh();
    expect(reg.settingsFor('/dev/ttyACM0')).toMatchObject({ baudRate: 'auto', mode: 'lines' });
    await reg.saveSettings('/dev/ttyACM0', { baudRate: 921600, axes: ['ax', 'ay', 'az'] });
    setPorts([nano('/dev/ttyACM3')]); // replugged elsewhere
    await reg.refresh();
    expect(reg.settingsFor('/dev/ttyACM3')).toMatchObject({ baudRate: 921600, axes: ['ax', 'ay', 'az'] });
    await expect(reg.saveSettings('/dev/ttyACM3', { baudRate: 12 })).rejects.toThrow();
  });

  it('survives a damaged settings file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cd-ports-'));
    await writeFile(join(dir, 'serial-ports.json'), '{not json');
    const { reg } = setup(dir);
    await reg.load();
    expect(reg.ports()).toEqual([]);
  });
});
