import { mkdir, mkdtemp, readdir, rm, writeFile, appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Sample } from '../../src-main/core/contract/contract.js';
import { completeRows, recoverRecordings } from '../../src-main/core/capture/recording-recovery.js';
import { encodeRows } from '../../src-main/core/capture/cbor-rows.js';
import { createLogger } from '../../src-main/core/log.js';
import { decodeAcquisition } from '../../src-main/core/samples/formats/acquisition.js';
import { wavHeader } from '../../src-main/core/samples/formats/wav.js';
import { readWavPcm } from '../../src-main/core/samples/formats/wav-pcm.js';
import { SampleStore } from '../../src-main/core/samples/sample-store.js';
import { assertBuilt, startServe } from '../support/cli.js';
import { TestWsClient } from '../support/ws-client.js';

const log = createLogger(() => {});
const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});
async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'cd-recover-'));
  dirs.push(d);
  return d;
}
/** A data folder with its (empty) recordings folder, where a dead recording leaves its files. */
async function recordingsDir(): Promise<{ dataDir: string; rec: string }> {
  const dataDir = await tempDir();
  const rec = join(dataDir, 'recordings');
  await mkdir(rec, { recursive: true });
  return { dataDir, rec };
}
/** Runs the recovery of a start over `dataDir`'s store and hands what came back to `check`. */
async function recoverIn(dataDir: string, check: (got: Sample[], store: SampleStore) => Promise<void>): Promise<void> {
  const store = await SampleStore.open(dataDir, log);
  try {
    await check(await recoverRecordings(store, log, async () => undefined), store);
  } finally {
    await store.close();
  }
}

/** Through the real browser shell: start `sourceId`, record it, kill -9 the process after `ms`. */
async function killMidRecording(dataDir: string, sourceId: string, record: Record<string, unknown>, ms: number, stream: Record<string, unknown> = {}): Promise<void> {
  const first = await startServe(['--port', '0', '--data-dir', dataDir]);
  const client = await TestWsClient.connect(`${first.url.replace(/^http/, 'ws')}ws`);
  const call = async (method: string, input: unknown) => {
    const r = await client.call(method, input);
    if (!r.ok) throw new Error(r.error.message);
  };
  await call('stream.start', { sourceId, ...stream });
  await call('record.start', { sourceIds: [sourceId], ...record });
  await new Promise((r) => setTimeout(r, ms));
  client.close();
  first.child.kill('SIGKILL');
  await new Promise((r) => first.child.once('exit', r));
}

/** Starts the shell again on the same data folder and lists its samples. */
async function samplesAfterRestart(dataDir: string): Promise<Sample[]> {
  const second = await startServe(['--port', '0', '--data-dir', dataDir]);
  const again = await TestWsClient.connect(`${second.url.replace(/^http/, 'ws')}ws`);
  try {
    const r = await again.call('samples.list', {});
    if (!r.ok) throw new Error(r.error.message);
    return (r.value as { samples: Sample[] }).samples;
  } finally {
    again.close();
    second.child.kill('SIGTERM');
  }
}

describe('interrupted recordings', () => {
  it('counts whole rows only: a row cut short by the crash is dropped', () => {
    const rows = encodeRows([1, 2.5, -3, 70000, 0.1, 9], 3, 2);
    expect(completeRows(rows, 3)).toEqual({ rows: 2, bytes: rows.length });
    expect(completeRows(rows.subarray(0, rows.length - 3), 3)).toEqual({ rows: 1, bytes: encodeRows([1, 2.5, -3], 3, 1).length });
    expect(completeRows(new Uint8Array(0), 3)).toEqual({ rows: 0, bytes: 0 });
  });

  it('turns the files a dead recording left into an incomplete, local sample with its label and metadata', async () => {
    const { dataDir, rec } = await recordingsDir();
    const header = { deviceType: 'BOARD', sensors: [{ name: 'ax', units: 'g' }, { name: 'ay', units: 'g' }], context: { sourceId: 'serial:/dev/x', label: 'wave', category: 'testing', metadata: { subject: 'ana' }, intervalMs: 10 }, started: new Date().toISOString() };
    await writeFile(join(rec, 'abcdef12-0000.json'), JSON.stringify(header));
    await writeFile(join(rec, 'abcdef12-0000.rows'), encodeRows([1, 2, 3, 4, 5.5, 6.25], 2, 3));
    await appendFile(join(rec, 'abcdef12-0000.rows'), Buffer.from([0x82, 0xfb, 0x40])); // half a row
    // A header whose capture never got a row: nothing to keep, and its file goes.
    await writeFile(join(rec, 'empty-0000.json'), JSON.stringify(header));

    await recoverIn(dataDir, async (got, store) => {
      expect(got).toHaveLength(1);
      const s = got[0]!;
      expect(s).toMatchObject({ name: 'wave.abcdef12.cbor', label: 'wave', category: 'testing', metadata: { subject: 'ana' }, state: 'local', incomplete: true, lengthMs: 30 });
      expect(s.note).toMatch(/recovered/);
      expect(decodeAcquisition(await store.readBytes(s), 'cbor').payload.values).toEqual([[1, 2], [3, 4], [5.5, 6.25]]);
      expect(await readdir(rec)).toEqual([]);
      // A second start finds nothing more to do.
      expect(await recoverRecordings(store, log, async () => undefined)).toEqual([]);
    });
  });

  it('leaves out the rows from before the take began (a session waiting for its other sources), as a finished take does; keeps them all, with a note, when that place cannot be read', async () => {
    const { dataDir, rec } = await recordingsDir();
    const header = { deviceType: 'BOARD', sensors: [{ name: 'ax', units: 'g' }], context: { sourceId: 'serial:/dev/x', label: 'late', intervalMs: 10 }, started: new Date().toISOString() };
    const before = encodeRows([1, 2, 3], 1, 3);
    await writeFile(join(rec, 'beef0001-0000.json'), JSON.stringify(header));
    await writeFile(join(rec, 'beef0001-0000.rows'), Buffer.concat([before, encodeRows([10, 11, 12, 13], 1, 4)]));
    await writeFile(join(rec, 'beef0001-0000.begin'), JSON.stringify({ rows: 3, bytes: before.length }));
    // Its take began, but its first row never reached the disk: every row is kept.
    await writeFile(join(rec, 'beef0002-0000.json'), JSON.stringify({ ...header, context: { ...header.context, label: 'early' } }));
    await writeFile(join(rec, 'beef0002-0000.rows'), before);
    await writeFile(join(rec, 'beef0002-0000.begin'), JSON.stringify({ rows: 3, bytes: before.length }));
    // Its .begin was cut short by the crash: every row is kept, and the note says to crop.
    await writeFile(join(rec, 'beef0003-0000.json'), JSON.stringify({ ...header, context: { ...header.context, label: 'cut' } }));
    await writeFile(join(rec, 'beef0003-0000.rows'), Buffer.concat([before, encodeRows([10, 11], 1, 2)]));
    await writeFile(join(rec, 'beef0003-0000.begin'), '{"rows":3,"by');
    await recoverIn(dataDir, async (got, store) => {
      const late = got.find((s) => s.label === 'late')!;
      expect(late).toMatchObject({ lengthMs: 40, extra: expect.objectContaining({ rows: 4, rows_before_take: 3 }) });
      expect(decodeAcquisition(await store.readBytes(late), 'cbor').payload.values).toEqual([[10], [11], [12], [13]]);
      const early = got.find((s) => s.label === 'early')!;
      expect(decodeAcquisition(await store.readBytes(early), 'cbor').payload.values).toEqual([[1], [2], [3]]);
      const cut = got.find((s) => s.label === 'cut')!;
      expect(decodeAcquisition(await store.readBytes(cut), 'cbor').payload.values).toEqual([[1], [2], [3], [10], [11]]);
      expect(cut.note).toMatch(/Where the take began could not be read.*crop its start/);
      expect(cut.extra['take_begin_unreadable']).toMatch(/beef0003-0000\.begin does not say where the take began/);
      expect(await readdir(rec)).toEqual([]);
    });
  });

  it('keeps every whole frame of a microphone recording whose header was never updated, and leaves a live process alone', async () => {
    const { dataDir, rec } = await recordingsDir();
    const note = { label: 'hum', category: 'training', metadata: { room: 'lab' }, sampleRate: 16000, device: 'mic', started: new Date().toISOString(), pid: 999_999_999 };
    await writeFile(join(rec, '1234abcd-0000.audio.json'), JSON.stringify(note));
    const pcm = Int16Array.from({ length: 500 }, (_, i) => i - 250);
    // A header that still says 0 bytes (written at start), the audio, and half a frame.
    await writeFile(join(rec, '1234abcd-0000.wav'), Buffer.concat([wavHeader(16000, 1, 0), Buffer.from(pcm.buffer), Buffer.from([7])]));
    // A recording another living process is making (here: our parent) is not touched.
    await writeFile(join(rec, 'busy-0000.audio.json'), JSON.stringify({ ...note, pid: process.ppid }));
    await writeFile(join(rec, 'busy-0000.wav'), wavHeader(16000, 1, 0));

    await recoverIn(dataDir, async ([s, ...more], store) => {
      expect(more).toEqual([]);
      expect(s).toMatchObject({ name: 'hum.1234abcd.wav', kind: 'audio', label: 'hum', metadata: { room: 'lab' }, incomplete: true, state: 'local', lengthMs: 31.25 });
      const back = readWavPcm(await store.readBytes(s!));
      expect(back.sampleRate).toBe(16000);
      expect([...back.channels[0]!]).toEqual([...pcm]);
      expect((await readdir(rec)).sort()).toEqual(['busy-0000.audio.json', 'busy-0000.wav']);
    });
  });

  it('kill -9 during a recording through the real browser shell: the next start has the sample', async () => {
    assertBuilt();
    const dataDir = join(await tempDir(), 'data');
    await killMidRecording(dataDir, 'simulated:imu', { label: 'crash', category: 'training', metadata: { rig: 'r1' } }, 1500, { rateHz: 200 });
    const samples = await samplesAfterRestart(dataDir);
    expect(samples).toHaveLength(1);
    const s = samples[0]!;
    expect(s).toMatchObject({ label: 'crash', category: 'training', metadata: { rig: 'r1' }, incomplete: true, state: 'local' });
    // About 1.5 s at 200 Hz were on disk when the process died (rows are flushed as they come).
    expect(s.extra['rows']).toBeGreaterThan(100);
    expect(s.lengthMs).toBeCloseTo((s.extra['rows'] as number) * 5, 5);
    expect(await readdir(join(dataDir, 'recordings'))).toEqual([]);
  });
});

describe('interrupted microphone recording (real PulseAudio virtual microphone)', () => {
  it('kill -9 of the browser shell while recording the microphone: the next start has the WAV', async () => {
    assertBuilt();
    const dataDir = join(await tempDir(), 'data');
    await killMidRecording(dataDir, 'audio:default', { label: 'hum', category: 'testing', metadata: { room: 'lab' } }, 2000);
    const [s, ...more] = await samplesAfterRestart(dataDir);
    expect(more).toEqual([]);
    expect(s).toMatchObject({ kind: 'audio', label: 'hum', category: 'testing', metadata: { room: 'lab' }, incomplete: true, state: 'local' });
    expect(s!.name).toMatch(/^hum\.[0-9a-f]{8}\.wav$/);
    // Most of the 2 s was on disk (the capture warms up first; a busy machine delays it more).
    expect(s!.lengthMs).toBeGreaterThan(500);
    expect(s!.lengthMs).toBeLessThan(2500);
  });
});
