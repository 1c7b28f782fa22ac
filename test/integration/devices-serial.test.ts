import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { atBoard, holdPort, lineBoard, nordicBoard } from '../support/boards/board-on-pty.js';
import { openPtyPair } from '../support/boards/pty.js';
import { useCleanups } from '../support/cleanups.js';
import { runCli } from '../support/cli.js';
import { BOARDS_UDEV, fakeUdevadm } from '../support/udev/fake-udevadm.js';

const cleanups = useCleanups();
const jsonLines = (out: string) => out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

/** A udev database with no serial port in it: only the ports given with --port are shown. */
async function noPorts(): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'cd-udev-empty-')), 'empty.udev');
  await writeFile(file, 'P: /devices/virtual/block/loop0\nN: loop0\nE: DEVNAME=/dev/loop0\nE: SUBSYSTEM=block\n\n');
  return file;
}

describe('capture-desk devices serial', () => {
  it('lists the system\'s ports through serialport\'s udev listing, each board named by its USB id', async () => {
    const env = await fakeUdevadm(cleanups, BOARDS_UDEV);
    const r = await runCli(['devices', 'serial', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(jsonLines(r.stdout)).toEqual([
      { path: '/dev/ttyACM0', name: 'Arduino', board: 'Arduino Nano 33 BLE', vendor_id: '2341', product_id: '805a', serial_number: '8D1C4F1A5E3B2C41' },
      { path: '/dev/ttyACM1', name: 'SEGGER', board: 'Nordic DK (SEGGER J-Link OB)', vendor_id: '1366', product_id: '1015', serial_number: '000683512345' },
      { path: '/dev/ttyACM2', name: 'Raspberry Pi', board: 'Raspberry Pi Pico (RP2040)', vendor_id: '2e8a', product_id: '000a', serial_number: 'E6614103E7455A2F' },
      { path: '/dev/ttyS0', name: null, board: null, vendor_id: null, product_id: null, serial_number: null },
      { path: '/dev/ttyUSB0', name: 'Silicon Labs', board: 'CP2102 USB–serial bridge', vendor_id: '10c4', product_id: 'ea60', serial_number: '0001' },
      // A CH340 has no maker string (udev puts its vendor id there) and no serial number.
      { path: '/dev/ttyUSB1', name: 'QinHeng Electronics', board: 'CH340 USB–serial bridge', vendor_id: '1a86', product_id: '7523', serial_number: null },
    ]);

    const text = await runCli(['devices', 'serial', '--port', '/dev/pts/77'], { env });
    expect(text.stdout).toContain('/dev/ttyACM0  Arduino Nano 33 BLE  (Arduino)  2341:805a  serial 8D1C4F1A5E3B2C41\n');
    expect(text.stdout).toContain('/dev/ttyUSB1  CH340 USB–serial bridge  (QinHeng Electronics)  1a86:7523\n');
    expect(text.stdout).toMatch(/\/dev\/pts\/77  unknown device\n$/); // a --port the system does not list comes last
  });

  it('a listing that fails is said (exit 1), and the ports given by path are still shown', async () => {
    // No udevadm at all (a container without udev). (One that exits 1 lists nothing: serialport settles on its output's end.)
    const r = await runCli(['devices', 'serial', '--json', '--port', '/dev/pts/77'], { env: { PATH: '/nonexistent' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Could not list serial ports: .*ENOENT.*install udev \(udevadm\) or open the port by its path/);
    expect(jsonLines(r.stdout)).toEqual([{ path: '/dev/pts/77', name: null, board: null, vendor_id: null, product_id: null, serial_number: null }]);
  });

  it('--probe says what each board sends: numbers per line, Nordic frames, the platform firmware (AT)', async () => {
    const env = await fakeUdevadm(cleanups, await noPorts());
    const [lines, nordic, at, held] = await Promise.all([lineBoard(cleanups, ['--rate', '100']), nordicBoard(cleanups), atBoard(cleanups), openPtyPair()]);
    cleanups.push(() => held.close());
    const ide = await holdPort(cleanups, held.hostPath, 'arduino-ide');
    const started = Date.now();
    const r = await runCli(['devices', 'serial', '--probe', '--json', ...[lines, nordic, at].flatMap((b) => ['--port', b.pty.hostPath]), '--port', held.hostPath], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(Date.now() - started, 'probed at once, 5 s each at most').toBeLessThan(9000);
    const [l, n, a, h] = jsonLines(r.stdout);
    expect(Object.keys(l!)).toEqual(['path', 'name', 'board', 'vendor_id', 'product_id', 'serial_number', 'baud', 'protocol', 'axes', 'frequency_hz', 'problem']);
    expect(l).toMatchObject({ path: lines.pty.hostPath, board: null, baud: 115200, protocol: 'lines', axes: 3, problem: null });
    expect(Math.abs((l!.frequency_hz as number) - 100), 'the rate to about 1 %, also on a loaded machine').toBeLessThan(1.5);
    expect(n).toMatchObject({ path: nordic.pty.hostPath, protocol: 'nordic', axes: 6, frequency_hz: 100, problem: null });
    expect(a).toMatchObject({ path: at.pty.hostPath, protocol: 'at', axes: null, frequency_hz: null, problem: null });
    // A port another program holds: not opened, and the sentence says who holds it.
    expect(h).toMatchObject({ path: held.hostPath, baud: null, protocol: null, problem: `${held.hostPath} is held by arduino-ide (pid ${ide.pid}). Close that program (or its serial monitor) and try again.` });
  });

  it('--probe finds a board\'s baud rate from its output (57600 and 9600 behind an emulated UART) and remembers it', async () => {
    const env = await fakeUdevadm(cleanups, await noPorts());
    const dataDir = await mkdtemp(join(tmpdir(), 'cd-probe-baud-'));
    const [fast, slow] = await Promise.all([
      lineBoard(cleanups, ['--rate', '50'], { boardBaud: 57_600 }),
      lineBoard(cleanups, ['--rate', '20', '--axes', '2'], { boardBaud: 9_600 }),
    ]);
    const r = await runCli(['devices', 'serial', '--probe', '--json', '--data-dir', dataDir, '--port', fast.pty.hostPath, '--port', slow.pty.hostPath], { env });
    expect(r.code, r.stderr).toBe(0);
    const [f, s] = jsonLines(r.stdout);
    expect(f).toMatchObject({ path: fast.pty.hostPath, baud: 57_600, protocol: 'lines', axes: 3, problem: null });
    expect(s).toMatchObject({ path: slow.pty.hostPath, baud: 9_600, protocol: 'lines', axes: 2, problem: null });
    // Found rates are kept for the next open of the same board (here known by its path).
    const saved = JSON.parse(await readFile(join(dataDir, 'baud-rates.json'), 'utf8')) as { rates: Record<string, number> };
    expect(Object.values(saved.rates).sort((a, b) => a - b)).toEqual([9_600, 57_600]);
  });

  it('--probe of a port that opens but says nothing at any rate does not call it one that did not open', async () => {
    const env = await fakeUdevadm(cleanups, await noPorts());
    const silent = await openPtyPair(); // no board on the other end: a port with nothing running behind it
    cleanups.push(() => silent.close());
    const r = await runCli(['devices', 'serial', '--probe', '--json', '--data-dir', await mkdtemp(join(tmpdir(), 'cd-probe-silent-')), '--port', silent.hostPath], { env });
    expect(r.code, r.stderr).toBe(0);
    const [p] = jsonLines(r.stdout);
    // Before: "<path> did not open within 5 s." (the search and the AT questions outlast the 5 s).
    expect(p!.problem).not.toMatch(/did not open/);
    expect(p!.problem).toMatch(/^Nothing (readable|came) from .*(sketch running that prints readings)/);
  });

  it('--probe of a port that is not there says so, and names the same board at its new path', async () => {
    // The first listing sees the Nano at ttyACM0 (no such file here); by the time it is opened it
    // is listed at ttyACM3, as after a re-plug while something held the old node.
    const dir = await mkdtemp(join(tmpdir(), 'cd-udev-moved-'));
    const before = join(dir, 'before.udev');
    const after = join(dir, 'after.udev');
    const nano = (await readFile(BOARDS_UDEV, 'utf8')).split('\n\n').find((e) => e.includes('N: ttyACM0'))!;
    await writeFile(before, nano.replaceAll('ttyACM0', 'ttyACM90') + '\n\n');
    await writeFile(after, nano.replaceAll('ttyACM0', 'ttyACM91') + '\n\n');
    const env = await fakeUdevadm(cleanups, before, after);
    const r = await runCli(['devices', 'serial', '--probe', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(jsonLines(r.stdout)).toEqual([
      {
        path: '/dev/ttyACM90', name: 'Arduino', board: 'Arduino Nano 33 BLE', vendor_id: '2341', product_id: '805a', serial_number: '8D1C4F1A5E3B2C41',
        baud: null, protocol: null, axes: null, frequency_hz: null,
        problem: 'No serial port at /dev/ttyACM90 any more: the same board (serial number 8D1C4F1A5E3B2C41) is now at /dev/ttyACM91. Open /dev/ttyACM91 instead.',
      },
    ]);
  });
});
