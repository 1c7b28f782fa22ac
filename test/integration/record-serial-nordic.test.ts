import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeAcquisition } from '../../src-main/core/samples/formats/acquisition.js';
import { checkSample } from '../../src-main/core/samples/quality/check-sample.js';
import { lineBoard, nordicBoard } from '../support/boards/board-on-pty.js';
import { nordicValue, onWire } from '../support/boards/nordic-wire.mjs';
import { useCleanups } from '../support/cleanups.js';
import { runCli } from '../support/cli.js';

const cleanups = useCleanups();

const dataDir = async () => join(await mkdtemp(join(tmpdir(), 'cd-rec-nordic-')), 'data');
const jsonLines = (out: string) => out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown> & { file: string; rows: number });

/** Finds which board sample the take starts at from its first row, for a board without gaps there. */
function startSeq(first: number[], width: number, int32: boolean): number {
  return Array.from({ length: 200_000 }, (_, i) => i).find((s) => first.every((v, c) => c < width && v === onWire(nordicValue(s, c), int32)))!;
}

describe('capture-desk record serial with a Nordic data forwarder board (PTY emulator)', () => {
  it('auto: tells the board by its stream; rate, names and units from the board; exact length and values', async () => {
    const { pty } = await nordicBoard(cleanups, ['--rate', '200', '--channels', '9', '--si-every-ms', '1000', '--garbage-every', '150']);
    const r = await runCli(['record', 'serial', '--port', pty.hostPath, '--length-ms', '3000', '--label', 'tag', '--data-dir', await dataDir()]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Nordic data forwarder "nRF DataFwd" \(sensor type 1, BMI270\): 9 channels, 200 Hz, CRC-16 on/);
    expect(r.stderr).toMatch(/600 samples at 200 Hz, no samples lost; \d+ bad frames.*, int32 micro-units/);
    const [s] = jsonLines(r.stdout);
    expect(s).toMatchObject({ rows: 600, interval_ms: 5, incomplete: false, needs_attention: false });
    const msg = decodeAcquisition(await readFile(s!.file), 'cbor');
    expect(msg.payload.sensors.map((x) => x.name)).toEqual(['ax', 'ay', 'az', 'gx', 'gy', 'gz', 'temp', 'hum', 'pres']);
    expect(msg.payload.sensors.map((x) => x.units)).toEqual(['m/s2', 'm/s2', 'm/s2', 'rad/s', 'rad/s', 'rad/s', 'degC', '%RH', 'kPa']);
    const v = msg.payload.values;
    expect(v).toHaveLength(600);
    const start = startSeq(v[0]!, 9, true);
    v.forEach((row, k) => expect(row, `row ${k}`).toEqual(Array.from({ length: 9 }, (_, c) => onWire(nordicValue(start + k, c), true))));
  });

  it('--mode nordic: gaps known exactly (where, how many, the board\'s drops apart), never filled', async () => {
    const { pty } = await nordicBoard(cleanups, ['--rate', '100', '--channels', '3', '--values', 'float', '--crc', 'off', '--lengths', 'definite', '--drop-every', '120:5', '--lose-every', '170:12', '--si-every-ms', '500']);
    const r = await runCli(['record', 'serial', '--port', pty.hostPath, '--mode', 'nordic', '--length-ms', '4000', '--data-dir', await dataDir()]);
    expect(r.code, r.stderr).toBe(0);
    const [s] = jsonLines(r.stdout);
    expect(s!.rows).toBe(400);
    const v = decodeAcquisition(await readFile(s!.file), 'cbor').payload.values;
    // Rows are board samples in seq order, the gaps skipped, not filled: each row is the next sample the board sent.
    let seq = startSeq(v[0]!, 3, false);
    let skipped = 0;
    for (const row of v) {
      while (!row.every((x, c) => x === onWire(nordicValue(seq, c), false))) {
        seq++;
        skipped++;
        expect(skipped).toBeLessThan(200);
      }
      seq++;
    }
    expect(r.stderr).toMatch(/400 samples at 100 Hz, \d+ samples? lost at [\d.]+ s.*, \d+ dropped by the board/);
    const m = /400 samples at 100 Hz, (.*); /.exec(r.stderr)!;
    const lost = Number(/\((\d+) in (all|\d+ gaps)\)/.exec(m[1]!)?.[1] ?? /^(\d+) samples? lost/.exec(m[1]!)![1]);
    expect(lost).toBe(skipped);
    // Drops of 5 are the board's (dr), losses of 12 the link's.
    const dropped = Number(/(\d+) dropped by the board/.exec(m[1]!)![1]);
    expect(dropped % 5).toBe(0);
    expect((lost - dropped) % 12).toBe(0);
  });

  it("a board whose own timestamps disagree with its session info's rate: said, and its sample's quality check says it", async () => {
    const { pty } = await nordicBoard(cleanups, ['--rate', '100', '--channels', '3', '--ts-hz', '96', '--si-every-ms', '500']);
    const dir = await dataDir();
    const r = await runCli(['record', 'serial', '--port', pty.hostPath, '--length-ms', '3000', '--label', 'clock', '--data-dir', dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/the board's session info says 100\.0 Hz but its own timestamps run at 9[56]\.\d\d Hz \([34]\.\d ?%/);
    const [s] = jsonLines(r.stdout);
    expect(s!.rows).toBe(300); // the take is still counted in the board's samples at its declared rate
    const listed = await runCli(['samples', 'list', '--json', '--data-dir', dir]);
    const sample = jsonLines(listed.stdout)[0]!;
    expect(sample['board_ts_hz'] as number).toBeCloseTo(96, 0);
    const report = await checkSample({ path: s!.file }, { name: sample.name as string, kind: 'sensor', extra: sample }, { minLengthMs: 0 });
    expect(report.findings).toContainEqual(expect.objectContaining({ code: 'rate-mismatch', severity: 'warning' }));
  });

  it('waits for the session info, and splits a take at a board restart into two samples', async () => {
    const { pty } = await nordicBoard(cleanups, ['--start-ms', '2500', '--rate', '100', '--channels', '2', '--first-si-ms', '1000', '--si-every-ms', '400', '--reboot-at', '250']);
    const r = await runCli(['record', 'serial', '--port', pty.hostPath, '--mode', 'nordic', '--length-ms', '4000', '--data-dir', await dataDir()]);
    expect(r.code, r.stderr).toBe(0);
    const lines = jsonLines(r.stdout);
    expect(lines).toHaveLength(2);
    expect(lines[0]!.rows + lines[1]!.rows).toBe(400);
    expect(lines[0]!.note).toMatch(/part 1 of 2 of one take: the board restarted after it/);
    expect(lines[1]!.note).toMatch(/part 2 of 2/);
    expect(r.stderr).toMatch(/The board restarted during the take: its 2 parts are kept as separate samples/);
    // The take starts once the board is known (its session info came 1 s into the stream; the
    // samples held until then went to the live stream, see nordic-stream.test.ts): part 1 runs
    // from there to the restart at seq 250, in order.
    const first = decodeAcquisition(await readFile(lines[0]!.file), 'cbor').payload.values;
    const from = startSeq(first[0]!, 2, true);
    expect(from).toBeGreaterThanOrEqual(90);
    expect(first).toHaveLength(250 - from);
    first.forEach((row, k) => expect(row).toEqual([0, 1].map((c) => onWire(nordicValue(from + k, c), true))));
    const second = decodeAcquisition(await readFile(lines[1]!.file), 'cbor').payload.values;
    expect(second[0]).toEqual([0, 1].map((c) => onWire(nordicValue(0, c), true)));
  });

  it('auto still reads a numbers-per-line board as before', async () => {
    const { pty } = await lineBoard(cleanups, ['--rate', '100']);
    const r = await runCli(['record', 'serial', '--port', pty.hostPath, '--length-ms', '2000', '--data-dir', await dataDir()]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Detected 3 axes/);
    expect(r.stderr).not.toMatch(/Nordic/);
  });

  it("the firmware's text mode (CSV lines) is a numbers-per-line board", async () => {
    const { pty } = await nordicBoard(cleanups, ['--rate', '100', '--channels', '3', '--ascii', '--values', 'float']);
    const r = await runCli(['record', 'serial', '--port', pty.hostPath, '--length-ms', '2000', '--data-dir', await dataDir()]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Detected 3 axes/);
  });
});
