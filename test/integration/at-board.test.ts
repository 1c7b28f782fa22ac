import { SerialPort } from 'serialport';
import { describe, expect, it } from 'vitest';
import { CoreError } from '../../src-main/core/errors.js';
import { verifyAcquisitionSignature } from '../../src-main/core/samples/formats/acquisition.js';
import { AtClient } from '../../src-main/core/serial/at/at-client.js';
import { AtCommandError } from '../../src-main/core/serial/at/at-errors.js';
import type { AtSampleStage } from '../../src-main/core/serial/at/at-sampling.js';
import type { BytePort } from '../../src-main/core/serial/at/at-transport.js';
import { atBoard } from '../support/boards/board-on-pty.js';
import { socatAvailable } from '../support/boards/pty.js';
import { useCleanups } from '../support/cleanups.js';

/**
 * The AT client against a simulated official-firmware board (test/support/boards/at-board.mjs)
 * on the far end of a socat PTY pair, opened through serialport exactly as real hardware is.
 */
const POLL = { timeout: 5_000, interval: 20 };
const HMAC_KEY = 'lab-hmac-key-0123456789abcdef';
const API_KEY = 'ei_0123456789abcdef0123456789abcdef';

interface BoardEvent { event: string; [k: string]: unknown }

const cleanups = useCleanups();

/** Exactly what the app does with a real port, plus a record of baud-rate changes. */
function bytePortOf(port: SerialPort, bauds: number[]): BytePort {
  return {
    write: (data) => new Promise((resolve, reject) =>
      port.write(data, (err) => (err ? reject(err) : port.drain((e) => (e ? reject(e) : resolve()))))),
    onData(cb) {
      port.on('data', cb);
      return () => port.off('data', cb);
    },
    setBaudRate(baudRate) {
      bauds.push(baudRate);
      return new Promise((resolve, reject) => port.update({ baudRate }, (e) => (e ? reject(e) : resolve())));
    },
    onClose(cb) {
      const h = (err: (Error & { disconnected?: boolean }) | null) => cb({ disconnected: Boolean(err?.disconnected), error: err ?? null });
      port.on('close', h);
      return () => port.off('close', h);
    },
  };
}

async function startBoard(args: string[]) {
  const { pty, events } = await atBoard<BoardEvent>(cleanups, args);
  const port = new SerialPort({ path: pty.hostPath, baudRate: 115200, autoOpen: false });
  await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
  cleanups.push(() => new Promise<void>((resolve) => (port.isOpen ? port.close(() => resolve()) : resolve())));
  const bauds: number[] = [];
  const client = new AtClient(bytePortOf(port, bauds));
  cleanups.push(() => client.close());
  const lastSample = () => {
    const s = events.filter((e) => e.event === 'sample').at(-1);
    if (!s) throw new Error('the board recorded no sample');
    return { bytes: Buffer.from(s.base64 as string, 'base64'), fileName: s.fileName as string, sha256: s.sha256 as string };
  };
  return { pty, client, events, bauds, lastSample };
}

type Board = Awaited<ReturnType<typeof startBoard>>;

/** Reads the sample back with progress, next to the bytes the board says it stored. */
async function readBackAll(board: Board, result: Awaited<ReturnType<AtClient['sample']>>) {
  const progress: Array<[number, number | null]> = [];
  const bytes = await board.client.readBack(result, { onProgress: (r, t) => progress.push([r, t]) });
  return { bytes, progress, expected: board.lastSample().bytes };
}

async function sampleOnce(client: AtClient, sensor = 'Built-in accelerometer', lengthMs = 2000, intervalMs = 16) {
  await client.setSampleSettings({ label: 'wave', intervalMs, lengthMs, hmacKey: HMAC_KEY });
  await client.setUploadSettings({ apiKey: API_KEY, path: '/api/training/data' });
  const stages: AtSampleStage[] = [];
  const result = await client.sample(sensor, { onProgress: (s) => stages.push(s) });
  return { result, stages };
}

describe.skipIf(!socatAvailable())('AT firmware board over a PTY', () => {
  it('connects, reads the legacy (AT 1.3) config and keeps no secrets from it', async () => {
    const { client } = await startBoard(['--at-version', '1.3.0']);
    const config = await client.connect();
    expect(config).toMatchObject({
      deviceId: '5A:1B:C3:D4:E5:F6',
      deviceType: 'SIMULATED_AT_BOARD',
      atVersion: { major: 1, minor: 3, patch: 0 },
      transferBaudRate: null,
      sampling: { label: 'idle', intervalMs: 16, lengthMs: 1000, hmacKeySet: false },
      upload: { apiKeySet: false, path: '/api/training/data' },
      wifi: { present: true, connected: false, ssid: 'lab-wifi' },
    });
    expect(config.sensors).toEqual([
      { name: 'Built-in accelerometer', maxSampleLengthS: 300, frequencies: [62.5, 100] },
      { name: 'Built-in microphone', maxSampleLengthS: 60, frequencies: [16000] },
    ]);

    await client.setSampleSettings({ label: 'wave', intervalMs: 10, lengthMs: 3000, hmacKey: HMAC_KEY });
    await client.setUploadSettings({ apiKey: API_KEY, path: '/api/testing/data' });
    const again = await client.readConfig();
    expect(again.sampling).toEqual({ label: 'wave', intervalMs: 10, lengthMs: 3000, hmacKeySet: true });
    expect(again.upload).toMatchObject({ apiKeySet: true, path: '/api/testing/data' });
    const text = JSON.stringify(again);
    for (const secret of [HMAC_KEY, API_KEY, 'wifi-secret-pw']) expect(text).not.toContain(secret);
  });

  it('samples into the buffer and reads it back in chunks, byte for byte and signed', async () => {
    const board = await startBoard(['--at-version', '1.3.0', '--storage', 'buffer']);
    const { client } = board;
    await client.connect();
    // 16 kHz for a second: about 64 KB, more than one 32 KB read.
    const { result, stages } = await sampleOnce(client, 'Built-in microphone', 1000, 1000 / 16000);
    expect(stages).toEqual(['sampling', 'sampled']);
    expect(result).toMatchObject({ fileName: '/fs/wave', uploadedByDevice: false, buffer: { from: 0 } });

    const { bytes, progress, expected } = await readBackAll(board, result);
    expect(bytes.equals(expected)).toBe(true);
    expect(verifyAcquisitionSignature(bytes, HMAC_KEY)).toBe(true);
    expect(verifyAcquisitionSignature(bytes, 'another-key')).toBe(false);
    expect(progress.at(-1)).toEqual([expected.length, expected.length]);
    expect(progress.length).toBeGreaterThan(2); // 0, then one entry per chunk: more than one chunk
    await client.unlink(result.fileName);
  });

  it.each([
    ['1.3.0', 'base64'],
    ['1.1.0', 'hex'],
  ])('AT %s reads a file back (%s) and unlinks it', async (version) => {
    const board = await startBoard(['--at-version', version, '--storage', 'file']);
    const { client } = board;
    const config = await client.connect();
    expect(config.atVersion.minor).toBe(Number(version.split('.')[1]));
    const { result } = await sampleOnce(client, 'Built-in microphone', 1000);
    expect(result).toEqual({ fileName: '/fs/wave.0', uploadedByDevice: false });
    const bytes = await client.readBack(result);
    expect(bytes.equals(board.lastSample().bytes)).toBe(true);
    expect(verifyAcquisitionSignature(bytes, HMAC_KEY)).toBe(true);
    await client.unlink(result.fileName);
    await expect(client.readBack(result)).rejects.toMatchObject({ code: 'NotFound' });
    const again = client.unlink(result.fileName);
    await expect(again).rejects.toBeInstanceOf(AtCommandError);
    await expect(again).rejects.toMatchObject({ kind: 'device-error', code: 'Unavailable' });
  });

  it('reads back at the fast transfer rate the board advertises (AT 1.8) and returns to 115200', async () => {
    const board = await startBoard(['--at-version', '1.8.0', '--storage', 'buffer', '--transfer-baud', '921600']);
    const { client, bauds, events } = board;
    const config = await client.connect();
    expect(config.transferBaudRate).toBe(921600);
    expect(config.snapshot).toEqual({ hasSnapshot: false, resolutions: [] });
    const { result } = await sampleOnce(client, 'Built-in microphone', 1000, 1000 / 16000);
    const { bytes, expected } = await readBackAll(board, result);
    expect(bytes.equals(expected)).toBe(true);
    expect(verifyAcquisitionSignature(bytes, HMAC_KEY)).toBe(true);
    const chunks = Math.ceil(expected.length / (32 * 1024));
    // Up and back for each read; a chunk that came through damaged (a host slower than the board's
    // 100 ms pause, under load) is read again, at most twice more.
    const pairs = bauds.length / 2;
    expect(bauds).toEqual(Array.from({ length: pairs }, () => [921600, 115200]).flat());
    expect(pairs).toBeGreaterThanOrEqual(chunks);
    expect(pairs).toBeLessThanOrEqual(chunks * 3);
    // The board reports its baud changes on a channel of its own: the last may still be on its way.
    await expect.poll(() => events.filter((e) => e.event === 'baud').map((e) => e.baudRate), POLL).toEqual(bauds);
    // Back at the AT rate: the board still answers.
    await expect(client.readConfig()).resolves.toMatchObject({ deviceId: '5A:1B:C3:D4:E5:F6' });
  });

  it('stops a running inference with b before talking AT', async () => {
    const { client } = await startBoard(['--at-version', '1.8.0', '--inferencing']);
    await expect(client.connect()).resolves.toMatchObject({ atVersion: { major: 1, minor: 8, patch: 0 } });
  });

  it('reports a board that uploads by itself, with nothing to read back', async () => {
    const { client } = await startBoard(['--storage', 'upload']);
    await client.connect();
    const { result } = await sampleOnce(client);
    expect(result).toEqual({ fileName: '/fs/wave.0', uploadedByDevice: true });
    await expect(client.readBack(result)).rejects.toMatchObject({ code: 'InvalidArguments' });
  });

  it('types the board\'s refusals', async () => {
    const { client } = await startBoard(['--at-version', '1.3.0']);
    await client.connect();
    const unknown = client.transport.command('AT+NOSUCHTHING');
    await expect(unknown).rejects.toBeInstanceOf(AtCommandError);
    await expect(unknown).rejects.toMatchObject({ kind: 'unknown-command', code: 'Unavailable', deviceText: 'Not a valid AT command (AT+NOSUCHTHING)' });
    const sensor = client.transport.command('AT+SAMPLESTART=Thermometer');
    await expect(sensor).rejects.toMatchObject({ kind: 'device-error', deviceText: "ERR: Failed to find sensor 'Thermometer' in the sensor list" });
    await expect(client.sample('Thermometer')).rejects.toMatchObject({ code: 'InvalidArguments' });
    await expect(client.setSampleSettings({ label: 'a,b', intervalMs: 16, lengthMs: 1000 })).rejects.toMatchObject({ code: 'InvalidArguments' });
    // Still in step after the errors.
    await expect(client.readConfig()).resolves.toMatchObject({ deviceType: 'SIMULATED_AT_BOARD' });
  });

  it('fails a command in flight with Disconnected when the line drops', async () => {
    const { client, pty } = await startBoard(['--storage', 'buffer']);
    await client.connect();
    // Five minutes, six seconds at the board's time scale: long enough to pull the plug mid-way.
    await client.setSampleSettings({ label: 'long', intervalMs: 16, lengthMs: 300_000, hmacKey: HMAC_KEY });
    const stages: AtSampleStage[] = [];
    // Caught at once: it rejects while the PTY is being torn down, before anything awaits it.
    const sampling = client.sample('Built-in accelerometer', { onProgress: (s) => stages.push(s) }).catch((e: unknown) => e);
    await expect.poll(() => stages, POLL).toContain('sampling');
    await pty.close();
    const err = await sampling;
    expect(err).toBeInstanceOf(CoreError);
    expect(err).toMatchObject({ code: 'Disconnected' });
    await expect(client.readConfig()).rejects.toMatchObject({ code: 'Disconnected' });
  });
});
