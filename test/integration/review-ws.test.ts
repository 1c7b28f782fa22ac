import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import type { JobProgress, Sample, SampleOverview } from '../../src-main/core/contract/contract.js';
import { decodeAcquisition, encodeAcquisition, verifyAcquisitionSignature } from '../../src-main/core/samples/formats/acquisition.js';
import { encodeWav } from '../../src-main/core/samples/formats/wav.js';
import { readWavPcm } from '../../src-main/core/samples/formats/wav-pcm.js';
import { assertBuilt, startServe } from '../support/cli.js';
import { TestWsClient } from '../support/ws-client.js';

// The review methods through the real browser shell: `capture-desk serve` in its own process,
// the contract over its WebSocket (CBOR, typed arrays as tags), the project's HMAC key in the
// session's real keychain (run under test/env.sh).
const HMAC = `review-key-${process.pid}`;
let dir: string;
let child: ChildProcess;
let client: TestWsClient;

async function call<T>(method: string, input: unknown): Promise<T> {
  const r = await client.call(method, input);
  if (!r.ok) throw Object.assign(new Error(r.error.message), { code: r.error.code });
  return r.value as T;
}

beforeAll(async () => {
  assertBuilt();
  dir = await mkdtemp(join(tmpdir(), 'cd-review-ws-'));
  const serve = await startServe(['--port', '0', '--data-dir', join(dir, 'data')]);
  child = serve.child;
  client = await TestWsClient.connect(`${serve.url.replace(/^http/, 'ws')}ws`);
  await call('settings.set', { projectId: 900_000 + (process.pid % 90_000) });
  await call('keys.set', { kind: 'hmac-key', key: HMAC });
});

afterAll(async () => {
  client?.close();
  child?.kill('SIGTERM');
  await rm(dir, { recursive: true, force: true });
});

const progressOf = (jobId: string) =>
  client.messages.flatMap((m) => (m.t === 'event' && m.name === 'samples.progress' && (m.payload as JobProgress).jobId === jobId ? [m.payload as JobProgress] : []));

describe('review over the browser shell', () => {
  let sensor: Sample;

  it('opens a signed sensor sample: overview arrives as typed arrays', async () => {
    const values = Array.from({ length: 6000 }, (_, i) => [Math.sin(i / 10), i, -i]);
    const bytes = encodeAcquisition({ payload: { device_type: 'BOARD', interval_ms: 10, sensors: ['x', 'y', 'z'].map((name) => ({ name, units: 'g' })), values } }, { format: 'cbor', hmacKey: HMAC });
    sensor = await call<Sample>('samples.addFile', { name: 'shake.1.cbor', bytes: new Uint8Array(bytes), category: 'training' });
    const o = await call<SampleOverview>('samples.overview', { id: sensor.id, width: 600 });
    expect(o).toMatchObject({ kind: 'sensor', rows: 6000, lengthMs: 60_000 });
    expect(o.envelope.t).toBeInstanceOf(Float64Array);
    expect(o.envelope.max[1]).toBeInstanceOf(Float32Array);
    expect(o.envelope.max[1]![599]).toBe(5999);
  });

  it('crops into a new sample signed with the project key', async () => {
    const c = await call<Sample>('samples.crop', { id: sensor.id, startMs: 10_000, endMs: 20_000 });
    const bytes = await readFile(join(dir, 'data', c.file));
    expect(verifyAcquisitionSignature(bytes, HMAC)).toBe(true);
    expect(decodeAcquisition(bytes, 'cbor').payload.values[0]![1]).toBe(1000);
    await client.waitFor((m) => m.t === 'event' && m.name === 'samples.changed' && (m.payload as { ids: string[] }).ids.includes(c.id));
  });

  it('splits with progress events, and a cancelled split leaves nothing', async () => {
    const r = await call<{ samples: Sample[] }>('samples.split', { id: sensor.id, jobId: 'ws-split', split: { mode: 'fixed', windowMs: 6000 } });
    expect(r.samples).toHaveLength(10);
    expect(progressOf('ws-split').at(-1)).toEqual({ jobId: 'ws-split', op: 'split', done: 10, total: 10, state: 'done' });

    // Sample files only: the new samples' sidecars are written in the background and may still be arriving.
    const sampleFiles = async () => (await readdir(join(dir, 'data', 'samples'))).filter((f) => !/\.meta\.json(\.[0-9a-f]+\.tmp)?$/.test(f)).sort();
    const before = await sampleFiles();
    const listed = (await call<{ total: number }>('samples.list', {})).total;
    const started = client.call('samples.split', { id: sensor.id, jobId: 'ws-cancel', split: { mode: 'fixed', windowMs: 10, strideMs: 10 } });
    await client.waitFor((m) => m.t === 'event' && m.name === 'samples.progress' && (m.payload as JobProgress).jobId === 'ws-cancel' && (m.payload as JobProgress).done > 0, 10_000);
    expect(await call('samples.cancel', { jobId: 'ws-cancel' })).toEqual({ cancelled: true });
    const res = await started;
    expect(res).toMatchObject({ ok: false, error: { code: 'Cancelled' } });
    expect(await sampleFiles()).toEqual(before);
    expect((await call<{ total: number }>('samples.list', {})).total).toBe(listed);
    expect(progressOf('ws-cancel').at(-1)?.state).toBe('cancelled');
  });

  it('plays audio as WAV bytes and draws its spectrogram', async () => {
    const rate = 16000;
    const pcm = Int16Array.from({ length: rate * 3 }, (_, i) => Math.round(10000 * Math.sin((2 * Math.PI * 2000 * i) / rate)));
    const a = await call<Sample>('samples.addFile', { name: 'beep.1.wav', bytes: new Uint8Array(encodeWav(pcm, { sampleRate: rate })), category: 'training' });
    const piece = await call<{ wav: Uint8Array; startMs: number; endMs: number; truncated: boolean }>('samples.audio', { id: a.id, startMs: 1000 });
    expect(piece).toMatchObject({ startMs: 1000, endMs: 3000, truncated: false });
    expect(readWavPcm(piece.wav).channels[0]![0]).toBe(pcm[16000]);
    const spec = await call<{ frames: number; bins: number; data: Uint8Array; maxHz: number }>('samples.spectrogram', { id: a.id, frames: 100, fftSize: 256 });
    expect(spec.data).toBeInstanceOf(Uint8Array);
    const frame = spec.data.subarray(50 * spec.bins, 51 * spec.bins);
    expect(frame.indexOf(Math.max(...frame))).toBe(Math.round((2000 / spec.maxHz) * spec.bins));
  });

  it('exports as a job into the data folder', async () => {
    const r = await call<{ files: number; dir: string }>('samples.export', { jobId: 'ws-export', ids: [sensor.id], csv: true });
    expect(r.files).toBe(1);
    expect(r.dir.startsWith(join(dir, 'data', 'exports'))).toBe(true);
    expect((await readdir(join(r.dir, 'training')))).toEqual(['shake.1.csv']);
    expect(progressOf('ws-export').at(-1)).toMatchObject({ op: 'export', done: 1, total: 1, state: 'done' });
  });
});
