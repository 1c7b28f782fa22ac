import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeAcquisition } from '../../src-main/core/samples/formats/acquisition.js';
import { lineBoard } from '../support/boards/board-on-pty.js';
import { boardValue } from '../support/boards/line-board-values.mjs';
import { useCleanups } from '../support/cleanups.js';
import { runCli } from '../support/cli.js';
import { HMAC_KEY, startConnect, startPlatform } from '../support/connect-run.js';

// Boards on the emulated UART (uart-pty.py): what the CLI reads at a rate other than the board's
// is what a real serial port reads, so the rate has to be found, not assumed.

const cleanups = useCleanups();
const dataDir = async () => join(await mkdtemp(join(tmpdir(), 'cd-baud-')), 'data');
const lastJson = (out: string) => JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, unknown> & { file: string };

/** Every row of the take is the board's next row: found where it starts, then compared exactly. */
async function expectBoardRows(file: string, rows: number): Promise<void> {
  const v = decodeAcquisition(await readFile(file), 'cbor').payload.values;
  expect(v).toHaveLength(rows);
  const start = Array.from({ length: 5000 }, (_, i) => i).find((i) => [0, 1, 2].every((a) => v[0]![a] === boardValue(i, a)));
  expect(start, 'the first recorded row is a board row').toBeDefined();
  v.forEach((row, k) => expect(row, `row ${k}`).toEqual([0, 1, 2].map((a) => boardValue(start! + k, a))));
}

describe('capture-desk record serial --baud auto (the default): the rate found from the board', { timeout: 60_000 }, () => {
  // A 9600-baud wire carries 960 bytes/s: that board prints 20 lines/s, the others 100.
  it.each([
    [9_600, '20'],
    [57_600, '100'],
    [115_200, '100'],
    [250_000, '100'],
    [921_600, '100'],
  ])('finds %i and records exactly the rows the board sent', async (baud, rate) => {
    const { pty } = await lineBoard(cleanups, ['--rate', rate], { boardBaud: baud });
    const r = await runCli(['record', 'serial', '--port', pty.hostPath, '--length-ms', '1500', '--label', 'found', '--data-dir', await dataDir()]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`Baud rate ${baud} \\(found`));
    const s = lastJson(r.stdout);
    expect(s).toMatchObject({ baud, baud_detected: true, rejected_lines: 0, incomplete: false });
    await expectBoardRows(s.file, s.rows as number);
  });

  it('tries the rate remembered for the board first, next time', async () => {
    const { pty } = await lineBoard(cleanups, ['--rate', '100'], { boardBaud: 57_600 });
    const data = await dataDir();
    const first = await runCli(['record', 'serial', '--port', pty.hostPath, '--length-ms', '500', '--data-dir', data]);
    expect(first.stderr).toMatch(/Baud rate 57600 \(found; tried 115200, 9600\)/);
    const again = await runCli(['record', 'serial', '--port', pty.hostPath, '--length-ms', '500', '--data-dir', data]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/Baud rate 57600 \(found\)/);
  });

  it('an ESP8266 (ROM banner at 74880 when the port opens, sketch at 115200) is read at the sketch\'s rate', async () => {
    const banner = '\\r\\n ets Jan  8 2013,rst cause:2, boot mode:(3,6)\\r\\n\\r\\nload 0x4010f000, len 3460, room 16 \\r\\ntail 4\\r\\nchksum 0xcc\\r\\nload 0x3fff20b8, len 40, room 4 \\r\\ntail 4\\r\\nchksum 0xc9\\r\\ncsum 0xc9\\r\\nv00000000\\r\\n~ld\\r\\n';
    const { pty } = await lineBoard(cleanups, ['--rate', '100'], { boardBaud: 115_200, banner });
    const r = await runCli(['record', 'serial', '--port', pty.hostPath, '--length-ms', '1500', '--data-dir', await dataDir()]);
    expect(r.code, r.stderr).toBe(0);
    const s = lastJson(r.stdout);
    expect(s).toMatchObject({ baud: 115_200, baud_detected: true, rejected_lines: 0 });
    await expectBoardRows(s.file, s.rows as number);
  });

  it('--baud N forces the rate and says so', async () => {
    const { pty } = await lineBoard(cleanups, ['--rate', '100'], { boardBaud: 57_600 });
    const r = await runCli(['record', 'serial', '--port', pty.hostPath, '--baud', '57600', '--length-ms', '1000', '--data-dir', await dataDir()]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Baud rate 57600 \(set\)/);
    const s = lastJson(r.stdout);
    expect(s).toMatchObject({ baud: 57_600, baud_detected: false, rejected_lines: 0 });
    await expectBoardRows(s.file, s.rows as number);
  });

  it('--baud N at a wrong rate stops, says another rate\'s data arrived and suggests --baud auto; nothing is saved', async () => {
    const { pty } = await lineBoard(cleanups, ['--rate', '100'], { boardBaud: 57_600 });
    const data = await dataDir();
    const r = await runCli(['record', 'serial', '--port', pty.hostPath, '--baud', '115200', '--length-ms', '1000', '--data-dir', data]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/at 115200 baud reads what a serial port reads from a board at another rate/);
    expect(r.stderr).toMatch(/--baud auto/);
    expect(r.stdout.trim()).toBe('');
    const list = await runCli(['samples', 'list', '--json', '--data-dir', data]);
    expect(list.stdout.trim()).toBe('');
  });
});

describe('capture-desk connect --baud auto (the default)', { timeout: 60_000 }, () => {
  it('finds a 57600-baud board\'s rate and says it in the device\'s connected event', async () => {
    const p = await startPlatform(cleanups, { hmacKey: HMAC_KEY });
    const b = await lineBoard(cleanups, ['--rate', '100'], { boardBaud: 57_600 });
    const c = await startConnect(cleanups, p, ['--port', b.pty.hostPath, '--hmac-key', HMAC_KEY]);
    const hello = await c.waitEvent((e) => e.event === 'connected', 30_000);
    expect(hello).toMatchObject({ baud: 57_600, baud_detected: true, sensors: [{ name: expect.stringMatching(/^Sensor with 3 axes/) }] });
    expect(Math.abs((hello.sensors as Array<{ frequencies: number[] }>)[0]!.frequencies[0]! - 100)).toBeLessThan(1);
  });
});
