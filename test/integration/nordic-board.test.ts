import { describe, expect, it } from 'vitest';
import { NordicStreamReader } from '../../src-main/core/serial/nordic/nordic-stream.js';
import { serialportOpener } from '../../src-main/core/serial/serialport-opener.js';
import { nordicBoard } from '../support/boards/board-on-pty.js';
import { nordicValue, onWire } from '../support/boards/nordic-wire.mjs';
import { useCleanups } from '../support/cleanups.js';

const cleanups = useCleanups();

interface Report {
  samples: number;
  sent: number;
  lost: Array<[number, number]>;
  dropped: Array<[number, number]>;
  garbage: number;
  sessions: Array<{ sid: number; samples: number }>;
  si: number;
}

/**
 * The board emulator (written from the digest) against the app's reader through a real PTY: every
 * frame the board sent arrives as one row with the board's exact values, every gap it made is a
 * known loss, garbage is counted and costs nothing else.
 */
async function run(args: string[], ms: number) {
  const board = await nordicBoard(cleanups, args);
  const link = await serialportOpener.open(board.pty.hostPath, 921_600);
  cleanups.push(() => link.close());
  const reader = new NordicStreamReader();
  const rows: Array<{ part: number; values: number[] }> = [];
  reader.onBatch((b) => {
    for (let i = 0; i < b.rowCount; i++) rows.push({ part: b.part, values: Array.from(b.rows.subarray(i * b.width, (i + 1) * b.width)) });
  });
  link.onData((chunk) => reader.push(chunk, performance.now()));
  // A board given --rows stops by itself; otherwise it is stopped after `ms`.
  if (!args.includes('--rows')) {
    await new Promise((r) => setTimeout(r, ms));
    board.child.kill('SIGTERM');
  }
  await expect.poll(() => board.events.length, { timeout: ms + 10_000 }).toBe(1);
  await new Promise((r) => setTimeout(r, 200)); // what the PTY still holds
  return { reader, rows, report: board.events[0] as unknown as Report };
}

describe('Nordic data forwarder emulator through a PTY', () => {
  it('default build (int32 micro-units, CRC, indefinite lengths) with garbage: every sent sample, exact values', async () => {
    const { reader, rows, report } = await run(['--rate', '400', '--channels', '9', '--garbage-every', '50', '--si-every-ms', '500'], 2000);
    const s = reader.stats();
    // The host opened mid-stream: the first frame may be cut (one bad frame), nothing else is lost.
    expect(rows.length).toBeGreaterThanOrEqual(report.sent - 1);
    expect(s.lost).toBe(0);
    expect(s.crc).toBe(true);
    expect(s.valueForm).toBe('int');
    expect(s.badTotal).toBeGreaterThanOrEqual(report.garbage);
    expect(s.badTotal).toBeLessThanOrEqual(report.garbage + 1);
    const first = report.sent - rows.length;
    rows.forEach((r, k) => expect(r.values).toEqual(Array.from({ length: 9 }, (_, c) => onWire(nordicValue(first + k, c), true))));
    expect(reader.session).toMatchObject({ hz: 400, names: ['ax', 'ay', 'az', 'gx', 'gy', 'gz', 'temp', 'hum', 'pres'], deviceName: 'nRF DataFwd' });
  });

  it('float32 without CRC, definite lengths, drops and losses, then a reboot: gaps known and split, two parts', async () => {
    const { reader, rows, report } = await run(
      ['--start-ms', '400', '--rows', '600', '--rate', '400', '--channels', '3', '--values', 'float', '--crc', 'off', '--lengths', 'definite', '--drop-every', '97:4', '--lose-every', '131:3', '--si-every-ms', '100', '--reboot-at', '300'],
      2000,
    );
    const s = reader.stats();
    expect(s.crc).toBe(false);
    expect(s.valueForm).toBe('float');
    expect(s.parts).toBe(2);
    expect(report.sessions).toHaveLength(2);
    const dropped = report.dropped.reduce((n, [, k]) => n + k, 0);
    const lost = report.lost.reduce((n, [, k]) => n + k, 0);
    // The board stopped by itself after its last sample: every gap was followed by a sample, so all are known.
    expect(s.lost).toBe(dropped + lost);
    expect(rows).toHaveLength(report.sent);
    // Whose they are comes with the next session info: drops after a session's last one (at most
    // one per session here) stay counted as transport losses, as the board never says otherwise.
    expect(s.deviceDrops + s.transportLost).toBeGreaterThanOrEqual(s.lost);
    expect(s.deviceDrops).toBeLessThanOrEqual(dropped);
    expect(s.deviceDrops).toBeGreaterThanOrEqual(dropped - 8);
    expect(rows.filter((r) => r.part === 0)).toHaveLength(300 - 3 * 4 - 2 * 3);
    expect(rows.filter((r) => r.part === 1)).toHaveLength(report.sent - 282);
  });
});
