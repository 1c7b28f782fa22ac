import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeAcquisition, verifyAcquisitionSignature } from '../../src-main/core/samples/formats/acquisition.js';
import { openError } from '../../src-main/core/serial/serialport-opener.js';
import { boardValue } from '../support/boards/line-board-values.mjs';
import { atBoard, lineBoard } from '../support/boards/board-on-pty.js';
import { openPtyPair } from '../support/boards/pty.js';
import { useCleanups } from '../support/cleanups.js';
import { runCli } from '../support/cli.js';
import { startIngestionServer } from '../support/ingestion-server/server.js';

const cleanups = useCleanups();

const dataDir = async () => join(await mkdtemp(join(tmpdir(), 'cd-rec-serial-')), 'data');
const lastJson = (out: string) => JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, unknown> & { file: string };

describe('capture-desk record serial --mode lines (PTY board)', () => {
  it('records every row the board printed, in order, with the rate measured to within 0.2%', async () => {
    const { pty } = await lineBoard(cleanups, ['--rate', '100']);
    const r = await runCli(['record', 'serial', '--port', pty.hostPath, '--length-ms', '4000', '--label', 'wave', '--axes', 'ax,ay,az', '--units', 'm/s2,m/s2,m/s2', '--metadata', '{"board":"sim"}', '--data-dir', await dataDir()]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Detected 3 axes: ax, ay, az/);
    expect(r.stderr).toMatch(/Frequency \d+\.\d+ Hz \(measured/);
    const s = lastJson(r.stdout);
    expect(s).toMatchObject({ label: 'wave', category: 'training', state: 'local', incomplete: false, metadata: { board: 'sim' } });
    // Exactly the readings asked for, counted at the rate the take declares (not timed by the host).
    expect(s.rows).toBe(Math.round(4000 / (s.interval_ms as number)));
    expect(s.rejected_lines).toBe(0);
    expect(Math.abs((s.interval_ms as number) - 10) / 10).toBeLessThan(0.002);

    const msg = decodeAcquisition(await readFile(s.file), 'cbor');
    expect(msg.payload.sensors).toEqual([{ name: 'ax', units: 'm/s2' }, { name: 'ay', units: 'm/s2' }, { name: 'az', units: 'm/s2' }]);
    expect(msg.payload.values).toHaveLength(s.rows as number);
    // Find which board row the capture starts at, then every following row must be the next one:
    // nothing lost, nothing doubled, bad lines kept out, full precision kept.
    const v = msg.payload.values;
    const start = Array.from({ length: 5000 }, (_, i) => i).find((i) => [0, 1, 2].every((a) => v[0]![a] === boardValue(i, a)));
    expect(start, 'first recorded row is a board row').toBeDefined();
    v.forEach((row, k) => expect(row, `row ${k}`).toEqual([0, 1, 2].map((a) => boardValue(start! + k, a))));
  });

  it('counts bad lines, keeps them out of the sample, and still measures the rate', async () => {
    const { pty, child, events } = await lineBoard(cleanups, ['--rate', '100', '--bad-every', '25']);
    const r = await runCli(['record', 'serial', '--port', pty.hostPath, '--length-ms', '4000', '--data-dir', await dataDir()]);
    expect(r.code, r.stderr).toBe(0);
    const s = lastJson(r.stdout);
    expect(s.rejected_lines as number).toBeGreaterThan(8);
    expect(r.stderr).toMatch(/rejected lines \(.*(nan|width|garbage)/);
    expect(Math.abs((s.interval_ms as number) - 10) / 10).toBeLessThan(0.005);
    const v = decodeAcquisition(await readFile(s.file), 'cbor').payload.values;
    expect(v.every((row) => row.length === 3 && row.every(Number.isFinite))).toBe(true);
    child.kill('SIGTERM');
    await expect.poll(() => events.length, { timeout: 3000 }).toBe(1);
    // Every recorded row is a board row (no garbage slipped in), in increasing board order.
    const start = Array.from({ length: 5000 }, (_, i) => i).find((i) => [0, 1, 2].every((a) => v[0]![a] === boardValue(i, a)))!;
    let at = start;
    for (const row of v) {
      while (![0, 1, 2].every((a) => row[a] === boardValue(at, a))) at++;
      at++;
    }
    expect(at - start).toBeLessThan(v.length + (s.rejected_lines as number) + 2);
  });

  it('understands name:value pairs and tab-separated lines', async () => {
    const { pty } = await lineBoard(cleanups, ['--rate', '50', '--sep', 'pairs', '--axes', '2']);
    const r = await runCli(['record', 'serial', '--port', pty.hostPath, '--length-ms', '1500', '--data-dir', await dataDir()]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Detected 2 axes: accX, accY');
    const tab = await lineBoard(cleanups, ['--rate', '50', '--sep', 'tab', '--eol', 'lf']);
    const t = await runCli(['record', 'serial', '--port', tab.pty.hostPath, '--length-ms', '1500', '--frequency', '50', '--data-dir', await dataDir()]);
    expect(t.code, t.stderr).toBe(0);
    expect(lastJson(t.stdout).interval_ms).toBe(20);
  });

  it('keeps a capture cut short by an unplug as an incomplete sample', async () => {
    const { pty } = await lineBoard(cleanups, ['--rate', '100']);
    // The cable comes out 1 s after the take began (said on stderr), however long the start took.
    let recording!: () => void;
    const began = new Promise<void>((r) => (recording = r));
    const run = runCli(['record', 'serial', '--port', pty.hostPath, '--length-ms', '20000', '--label', 'cut', '--data-dir', await dataDir()], {
      onSpawn: (child) => {
        let said = '';
        child.stderr!.on('data', (d) => void ((said += d), said.includes('Recording ') && recording()));
      },
    });
    await began;
    await new Promise((r) => setTimeout(r, 1000));
    await pty.close(); // the USB cable comes out
    const r = await run;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/disconnected/i);
    expect(r.stderr).toMatch(/kept as an incomplete sample/);
    const s = lastJson(r.stdout);
    expect(s).toMatchObject({ incomplete: true, label: 'cut' });
    expect(s.rows as number).toBeGreaterThan(50);
    expect(decodeAcquisition(await readFile(s.file), 'cbor').payload.values).toHaveLength(s.rows as number);
  });

  it('says what it saw when no numbers arrive', async () => {
    const pty = await openPtyPair();
    cleanups.push(() => pty.close());
    const r = await runCli(['record', 'serial', '--port', pty.hostPath, '--length-ms', '1000', '--data-dir', await dataDir()]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/No numeric lines from .* within \d+ s: nothing readable arrived at any baud rate \(tried 115200, 9600, .*\), and it did not answer AT commands at any of them\./);
  });

  it('uploads with --upload, signed with the HMAC key, and exits 0 only when confirmed', async () => {
    const srv = await startIngestionServer({ hmacKey: 'proj-hmac' });
    cleanups.push(() => srv.close());
    const { pty } = await lineBoard(cleanups, ['--rate', '100']);
    const r = await runCli(['record', 'serial', '--port', pty.hostPath, '--length-ms', '1500', '--label', 'up', '--category', 'testing', '--hmac-key', 'proj-hmac',
      '--upload', '--ingestion-url', srv.url, '--api-key', 'ei_test_key', '--data-dir', await dataDir()]);
    expect(r.code, r.stderr).toBe(0);
    const s = lastJson(r.stdout);
    expect(s).toMatchObject({ state: 'uploaded', label: 'up', category: 'testing' });
    expect(srv.samples).toHaveLength(1);
    expect(srv.samples[0]).toMatchObject({ label: 'up', category: 'testing' });
    expect(verifyAcquisitionSignature(srv.samples[0]!.bytes, 'proj-hmac')).toBe(true);
  });

  it('a label with "/" is kept as typed, and names a file that stays one file here and on the platform', async () => {
    const srv = await startIngestionServer();
    cleanups.push(() => srv.close());
    const { pty } = await lineBoard(cleanups, ['--rate', '100']);
    const r = await runCli(['record', 'serial', '--port', pty.hostPath, '--length-ms', '500', '--label', 'left/right',
      '--upload', '--ingestion-url', srv.url, '--api-key', 'ei_test_key', '--data-dir', await dataDir()]);
    expect(r.code, r.stderr).toBe(0);
    const s = lastJson(r.stdout);
    expect(s).toMatchObject({ state: 'uploaded', label: 'left/right' });
    expect(s.name).toMatch(/^left_right\.[0-9a-f]{8}\.cbor$/);
    expect(srv.samples).toHaveLength(1);
    // Before: sent as "left/right.….cbor", which the platform stored as "right.….cbor".
    expect(srv.samples[0]).toMatchObject({ label: 'left/right', originalName: s.name });
  });

  it('--upload with a refused key gives the command line\'s advice, and the next --upload run sends the queued take', async () => {
    const srv = await startIngestionServer();
    cleanups.push(() => srv.close());
    const { pty } = await lineBoard(cleanups, ['--rate', '100']);
    const data = await dataDir();
    const record = (key: string, label: string) => runCli(['record', 'serial', '--port', pty.hostPath, '--length-ms', '500', '--label', label,
      '--upload', '--ingestion-url', srv.url, '--api-key', key, '--data-dir', data]);
    const wrong = await record('WRONG', 'first');
    expect(wrong.code).toBe(1);
    expect(lastJson(wrong.stdout)).toMatchObject({ state: 'queued', label: 'first' });
    expect(wrong.stderr).toContain('--api-key KEY or in the CAPTURE_DESK_API_KEY environment variable');
    expect(wrong.stderr).toContain('the next record or classify run with --upload and that key on the same --data-dir sends it too');
    expect(wrong.stderr).not.toMatch(/Settings|resume/);
    expect(srv.samples).toHaveLength(0);

    const right = await record('ei_test_key', 'second');
    expect(right.code, right.stderr).toBe(0);
    expect(srv.samples.map((s) => s.label).sort()).toEqual(['first', 'second']);
  });

  it('refuses bad flags with exit code 2', async () => {
    for (const [args, text] of [
      [['--length-ms', '10'], '--port PATH is required'],
      [['--port', '/dev/null', '--mode', 'magic'], '--mode must be'],
      [['--port', '/dev/null', '--frequency=-3'], '--frequency must be'],
      [['--port', '/dev/null', '--category', 'validation'], '--category must be one of training, testing, post-processing'],
      [['--port', '/dev/null', '--upload'], '--upload needs --ingestion-url'],
    ] as const) {
      const r = await runCli(['record', 'serial', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(text);
    }
  });

  it('explains a missing port and a permission problem', () => {
    expect(openError('/dev/ttyACM9', new Error('Error: No such file or directory, cannot open /dev/ttyACM9')).message).toMatch(/No serial port at \/dev\/ttyACM9/);
    const denied = openError('/dev/ttyACM0', new Error('Error: Permission denied, cannot open /dev/ttyACM0'));
    expect(denied.code).toBe('PermissionDenied');
    if (process.platform === 'linux') expect(denied.message).toMatch(/dialout.*99-capture-desk\.rules/);
  });
});

describe('capture-desk record serial --mode at (official-firmware board on a PTY)', () => {
  it('samples on the board, reads it back and keeps the device-signed bytes exactly', async () => {
    const { pty, events } = await atBoard(cleanups, ['--at-version', '1.3.0', '--storage', 'buffer', '--time-scale', '0.05']);
    const r = await runCli(['record', 'serial', '--port', pty.hostPath, '--mode', 'at', '--length-ms', '2000', '--label', 'knock', '--hmac-key', 'board-key', '--data-dir', await dataDir()]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Sensor ".+" at [\d.]+ Hz/);
    const s = lastJson(r.stdout);
    const bytes = await readFile(s.file);
    const onBoard = events.filter((e) => e.event === 'sample').at(-1)!;
    expect(bytes.equals(Buffer.from(onBoard.base64 as string, 'base64'))).toBe(true);
    expect(verifyAcquisitionSignature(bytes, 'board-key')).toBe(true);
    expect(s).toMatchObject({ label: 'knock', signed_by_device: true, rejected_lines: 0 });
  });

  it('found by --mode auto, says that --axes is not used (the firmware names its axes), and records', async () => {
    const { pty } = await atBoard(cleanups, ['--at-version', '1.3.0', '--storage', 'buffer', '--time-scale', '0.05']);
    const r = await runCli(['record', 'serial', '--port', pty.hostPath, '--axes', 'x,y,z', '--length-ms', '1000', '--data-dir', await dataDir()]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('--axes is not used if it does: that firmware names its sensors\' axes and units itself.');
    expect(lastJson(r.stdout)).toMatchObject({ signed_by_device: false });
  });
});
