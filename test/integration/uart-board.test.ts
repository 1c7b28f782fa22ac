import { SerialPort } from 'serialport';
import { describe, expect, it } from 'vitest';
import { lineBoard } from '../support/boards/board-on-pty.js';
import { boardValue } from '../support/boards/line-board-values.mjs';
import { uartTransform } from '../support/boards/uart-transform.js';
import { useCleanups } from '../support/cleanups.js';

const cleanups = useCleanups();

/** Opens `path` at `baud` through serialport, as the app does, and gathers what arrives for `ms`. */
async function readFor(path: string, baud: number, ms: number): Promise<Buffer> {
  const port = new SerialPort({ path, baudRate: baud, autoOpen: false });
  await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
  cleanups.push(() => new Promise<void>((r) => (port.isOpen ? port.close(() => r()) : r())));
  const chunks: Buffer[] = [];
  port.on('data', (c: Buffer) => chunks.push(c));
  await new Promise((r) => setTimeout(r, ms));
  return Buffer.concat(chunks);
}

const expectedLine = (i: number) => [0, 1, 2].map((a) => boardValue(i, a)).join(',');

describe('the emulated UART board (uart-pty.py): a board at its own baud rate on a PTY', { timeout: 20_000 }, () => {
  // 250000 has no B-constant: serialport sets it with termios2/BOTHER, the bridge reads it with TCGETS2.
  it.each([57_600, 250_000])('read at its own rate (%i), it gives exactly the lines it printed', async (baud) => {
    const { pty } = await lineBoard(cleanups, ['--rate', '50'], { boardBaud: baud });
    const text = (await readFor(pty.hostPath, baud, 800)).toString('latin1');
    const lines = text.split('\r\n').slice(1, -1); // the first and last may be cut
    expect(lines.length).toBeGreaterThan(10);
    const first = Array.from({ length: 400 }, (_, i) => i).find((i) => expectedLine(i) === lines[0]);
    expect(first).toBeDefined();
    expect(lines).toEqual(lines.map((_, k) => expectedLine(first! + k)));
  });

  it('read at another rate (115200 for a 57600 board), it gives a UART\'s garbage, not the lines', async () => {
    const { pty } = await lineBoard(cleanups, ['--rate', '50'], { boardBaud: 57_600 });
    const bytes = await readFor(pty.hostPath, 115_200, 800);
    expect(bytes.length).toBeGreaterThan(20);
    // Mostly bytes no sketch prints (serialport sets IGNPAR, so framing errors are dropped, not NULs).
    expect(bytes.filter((b) => b >= 0x80).length / bytes.length).toBeGreaterThan(0.5);
    const text = bytes.toString('latin1');
    for (let i = 0; i < 60; i++) expect(text).not.toContain(expectedLine(i));
  });

  it('reads a 250000 board at 230400 (the nearest B-constant) as garbage', async () => {
    const { pty } = await lineBoard(cleanups, ['--rate', '50'], { boardBaud: 250_000 });
    const text = (await readFor(pty.hostPath, 230_400, 800)).toString('latin1');
    for (let i = 0; i < 60; i++) expect(text).not.toContain(expectedLine(i));
  });

  // A break (all zeros, stop bit too) is still one NUL under IGNPAR, unless IGNBRK: as the kernel's n_tty has it.
  it('turns framing errors into NULs as Linux does without IGNPAR, and drops them with it (as serialport sets it)', () => {
    const data = Buffer.from(Array.from({ length: 20 }, (_, i) => expectedLine(i) + '\r\n').join(''));
    const [plain, ignpar, same] = uartTransform([
      { from: 57_600, to: 115_200, data, splitLines: true },
      { from: 57_600, to: 115_200, data, splitLines: true, ignpar: true },
      { from: 57_600, to: 57_600, data },
    ]);
    expect(plain!.filter((b) => b === 0).length).toBeGreaterThan(plain!.length / 4);
    const nuls = (b: Buffer) => b.filter((x) => x === 0).length;
    expect(nuls(ignpar!)).toBeLessThan(nuls(plain!) / 2);
    expect(ignpar!.length).toBeLessThan(plain!.length);
    expect(same).toEqual(data);
  });

  it('paces the board at its wire speed: a 9600-baud board cannot push more than 960 bytes/s', async () => {
    // 100 lines/s of ~25 bytes want ~2500 bytes/s.
    const { pty } = await lineBoard(cleanups, ['--rate', '100'], { boardBaud: 9_600 });
    const bytes = await readFor(pty.hostPath, 9_600, 1500);
    expect(bytes.length).toBeLessThanOrEqual(960 * 1.5 + 100);
    expect(bytes.length).toBeGreaterThan(960 * 1.5 * 0.7);
  });
});
