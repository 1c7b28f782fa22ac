import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JobProgress, Sample } from '../../../src-main/core/contract/contract.js';
import { EventBus } from '../../../src-main/core/event-bus.js';
import { reviewHandlers } from '../../../src-main/core/handlers/review.js';
import { silentLogger } from '../../../src-main/core/log.js';
import { DecodedCache } from '../../../src-main/core/review/decoded-cache.js';
import { decodeAcquisition, encodeAcquisition, verifyAcquisitionSignature } from '../../../src-main/core/samples/formats/acquisition.js';
import { encodeWav } from '../../../src-main/core/samples/formats/wav.js';
import { readWavPcm } from '../../../src-main/core/samples/formats/wav-pcm.js';
import { SampleStore } from '../../../src-main/core/samples/sample-store.js';

const KEY = 'project-hmac-key';
let dir: string;
let store: SampleStore;
let bus: EventBus;
let progress: JobProgress[];
let announced: string[];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cd-review-'));
  store = await SampleStore.open(dir, silentLogger);
  bus = new EventBus();
  progress = [];
  announced = [];
  bus.on('samples.progress', (p) => progress.push(p));
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const review = (key: string | null = KEY) => reviewHandlers({ store, bus, hmacKey: async () => key ?? undefined, announce: (ids) => announced.push(...ids) }).handlers;

async function sensorSample(rows: number, o: { signed?: boolean; labels?: Sample['structuredLabels'] } = {}): Promise<Sample> {
  const values = Array.from({ length: rows }, (_, i) => [i, i * 0.5, -i]);
  const bytes = encodeAcquisition(
    { protected: { iat: 1_700_000_000 }, payload: { device_name: 'dev', device_type: 'BOARD', interval_ms: 10, sensors: ['x', 'y', 'z'].map((name) => ({ name, units: 'g' })), values } },
    { format: 'cbor', ...(o.signed ? { hmacKey: KEY } : {}) },
  );
  return store.addBytes({ name: 'wave.abc123.cbor', kind: 'sensor', label: 'wave', category: 'testing', metadata: { subject: 'a' }, structuredLabels: o.labels ?? null, lengthMs: rows * 10 }, bytes);
}

const files = async () => (await readdir(join(dir, 'samples'))).sort();

describe('review handlers', () => {
  it('gives the overview of a sample: axes, length, events and the whole-sample envelope', async () => {
    const s = await sensorSample(1000, { labels: [{ startIndex: 10, endIndex: 20, label: 'tap' }] });
    const o = await review()['samples.overview']({ id: s.id, width: 100 });
    expect(o).toMatchObject({ kind: 'sensor', rows: 1000, intervalMs: 10, lengthMs: 10_000, sampleRate: null, structuredLabels: [{ label: 'tap' }] });
    expect(o.axes.map((a) => a.name)).toEqual(['x', 'y', 'z']);
    expect(o.envelope.t.length).toBe(100);
    expect(o.envelope.max[2]![0]).toBe(0);
    expect(o.envelope.min[2]![99]).toBe(-999);
    const r = await review()['samples.range']({ id: s.id, startMs: 1000, endMs: 1100, width: 100 });
    expect(r).toMatchObject({ raw: true, firstRow: 99, rows: 12 });
  });

  it('crops into a new signed sample with labels shifted, keeping the original', async () => {
    const s = await sensorSample(1000, { signed: true, labels: [{ startIndex: 100, endIndex: 300, label: 'tap' }] });
    const c = await review()['samples.crop']({ id: s.id, startMs: 2000, endMs: 5000 });
    expect(c).toMatchObject({ label: 'wave', category: 'testing', metadata: { subject: 'a' }, lengthMs: 3000, structuredLabels: [{ startIndex: 0, endIndex: 100, label: 'tap' }] });
    expect(c.name).toBe('wave.abc123.crop.cbor');
    expect(c.extra).toMatchObject({ derived_from: s.id, rows: 300 });
    const bytes = await store.readBytes(c);
    expect(verifyAcquisitionSignature(bytes, KEY)).toBe(true);
    const msg = decodeAcquisition(bytes, 'cbor');
    expect(msg.payload.values[0]).toEqual([200, 100, -200]);
    expect(msg.payload.values.length).toBe(300);
    expect(msg.protected.iat).toBe(1_700_000_000);
    expect(store.get(s.id).id).toBe(s.id);
    expect(announced).toEqual([c.id]);
    // Cropping again gives a name of its own.
    const again = await review()['samples.crop']({ id: s.id, startMs: 0, endMs: 1000 });
    expect(again.name).toBe('wave.abc123.crop-2.cbor');
  });

  it('leaves results unsigned when the original was unsigned or no key is set', async () => {
    const signed = await sensorSample(100, { signed: true });
    const c = await review(null)['samples.crop']({ id: signed.id, startMs: 0, endMs: 500 });
    expect(decodeAcquisition(await store.readBytes(c), 'cbor').protected.alg).toBe('none');
  });

  it('crops and splits an unsigned sample when the keychain cannot be used; a signed one still says why it cannot', async () => {
    // The keychain read failed every crop ("Crop failed: No keychain …") though only a signed
    // original's results are signed: imported and unsigned recordings could not be cropped at all.
    const noKeychain = new Error('No keychain (Secret Service) is available: there is no D-Bus session bus.');
    const h = reviewHandlers({ store, bus, hmacKey: () => Promise.reject(noKeychain), announce: (ids) => announced.push(...ids) }).handlers;
    const unsigned = await sensorSample(100);
    const c = await h['samples.crop']({ id: unsigned.id, startMs: 0, endMs: 500 });
    expect(c).toMatchObject({ label: 'wave', category: 'testing', lengthMs: 500 });
    expect(decodeAcquisition(await store.readBytes(c), 'cbor').protected.alg).toBe('none');
    const split = await h['samples.split']({ id: unsigned.id, jobId: 'j-nokey', split: { mode: 'fixed', windowMs: 500, strideMs: 500 } });
    expect(split.samples).toHaveLength(2);
    const signed = await sensorSample(100, { signed: true });
    await expect(h['samples.crop']({ id: signed.id, startMs: 0, endMs: 500 })).rejects.toThrow(noKeychain);
  });

  it('splits into fixed windows with progress, and around events with their labels', async () => {
    const s = await sensorSample(1000, { labels: [{ startIndex: 150, endIndex: 250, label: 'tap' }, { startIndex: 700, endIndex: 720, label: 'swipe' }] });
    const { samples } = await review()['samples.split']({ id: s.id, jobId: 'j1', split: { mode: 'fixed', windowMs: 2000 } });
    expect(samples.map((x) => x.name)).toEqual([1, 2, 3, 4, 5].map((i) => `wave.abc123.w${i}.cbor`));
    expect(samples[0]!.label).toBe('wave');
    expect(samples[0]!.structuredLabels).toEqual([{ startIndex: 150, endIndex: 199, label: 'tap' }]);
    expect(samples[2]!.structuredLabels).toBeNull();
    expect(samples[1]!.structuredLabels).toEqual([{ startIndex: 0, endIndex: 50, label: 'tap' }]);
    expect(progress.at(0)).toMatchObject({ jobId: 'j1', op: 'split', state: 'running' });
    expect(progress.at(-1)).toEqual({ jobId: 'j1', op: 'split', done: 5, total: 5, state: 'done' });

    const ev = await review()['samples.split']({ id: s.id, jobId: 'j2', split: { mode: 'events', paddingMs: 100 } });
    expect(ev.samples.map((x) => [x.label, x.name, x.lengthMs])).toEqual([
      ['tap', 'tap.wave.abc123.e1.cbor', 1210],
      ['swipe', 'swipe.wave.abc123.e2.cbor', 410],
    ]);
    expect(decodeAcquisition(await store.readBytes(ev.samples[1]!), 'cbor').payload.values[0]).toEqual([690, 345, -690]);
    // The same split again is numbered as a second run, every name new.
    const again = await review()['samples.split']({ id: s.id, jobId: 'j3', split: { mode: 'fixed', windowMs: 2000 } });
    expect(again.samples.map((x) => x.name)).toEqual([1, 2, 3, 4, 5].map((i) => `wave.abc123.w${i}-2.cbor`));
  });

  it('a cancelled split leaves no row and no file behind', async () => {
    const s = await sensorSample(20_000);
    await store.flushSidecars(); // earlier samples' sidecars are written in the background
    const before = await files();
    const h = review();
    const running = h['samples.split']({ id: s.id, jobId: 'big', split: { mode: 'fixed', windowMs: 50 } });
    // Cancel once some windows are on disk.
    await new Promise<void>((res) => bus.on('samples.progress', (p) => p.done > 50 && res()));
    expect(h['samples.cancel']({ jobId: 'big' })).toEqual({ cancelled: true });
    await expect(running).rejects.toMatchObject({ code: 'Cancelled' });
    expect(await files()).toEqual(before);
    expect(store.list()).toHaveLength(1);
    expect(progress.at(-1)).toMatchObject({ jobId: 'big', state: 'cancelled' });
    expect(h['samples.cancel']({ jobId: 'big' })).toEqual({ cancelled: false });
  });

  it('crops and splits audio, plays a window and draws its spectrogram', async () => {
    const rate = 8000;
    const pcm = Int16Array.from({ length: rate * 2 }, (_, i) => Math.round(16000 * Math.sin((2 * Math.PI * 440 * i) / rate)));
    const s = await store.addBytes({ name: 'beep.w1.wav', kind: 'audio', label: 'beep', category: 'training' }, encodeWav(pcm, { sampleRate: rate }));
    const h = review();
    const o = await h['samples.overview']({ id: s.id, width: 200 });
    expect(o).toMatchObject({ kind: 'audio', sampleRate: rate, rows: rate * 2, lengthMs: 2000 });
    expect(o.envelope.max[0]![10]).toBeCloseTo(16000 / 32768, 2);
    const a = await h['samples.audio']({ id: s.id, startMs: 500, endMs: 1000 });
    expect(a).toMatchObject({ startMs: 500, endMs: 1000, truncated: false });
    expect(readWavPcm(a.wav).frames).toBe(4000);
    const spec = await h['samples.spectrogram']({ id: s.id, frames: 40, fftSize: 256 });
    expect(spec).toMatchObject({ frames: 40, bins: 128, maxHz: 4000 });
    const { samples } = await h['samples.split']({ id: s.id, jobId: 'a', split: { mode: 'fixed', windowMs: 500 } });
    expect(samples).toHaveLength(4);
    expect(samples[0]!.name).toBe('beep.w1.w1.wav');
    expect([...readWavPcm(await store.readBytes(samples[1]!)).channels[0]!.subarray(0, 3)]).toEqual([...pcm.subarray(4000, 4003)]);
  });

  it('exports as a job, and a cancelled export removes what it wrote', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push((await sensorSample(200 + i)).id);
    const h = review();
    const out = join(dir, 'out');
    const r = await h['samples.export']({ jobId: 'e1', ids, outDir: out });
    expect(r).toEqual({ files: 30, dir: out });
    expect(progress.at(-1)).toEqual({ jobId: 'e1', op: 'export', done: 30, total: 30, state: 'done' });
    const out2 = join(dir, 'out2');
    const running = h['samples.export']({ jobId: 'e2', ids, outDir: out2, csv: true });
    h['samples.cancel']({ jobId: 'e2' });
    await expect(running).rejects.toMatchObject({ code: 'Cancelled' });
    const left = await readdir(out2, { recursive: true }).catch(() => []);
    expect(left.filter((f) => f.includes('.'))).toEqual([]);
  });

  it('proposes one window per detected burst, follows the threshold, and splits the windows it is given', async () => {
    // 8 s of quiet 16 kHz audio with three tone bursts, the middle one 20 dB quieter.
    const sr = 16_000;
    const pcm = new Int16Array(8 * sr);
    let seed = 1;
    for (let i = 0; i < pcm.length; i++) pcm[i] = (((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) / 65536 - 0.5) * 60;
    for (const [at, amp] of [[1.5, 12_000], [4, 1200], [6.2, 12_000]] as const) {
      for (let i = 0; i < 0.3 * sr; i++) pcm[Math.round(at * sr) + i]! += amp * Math.sin(i * 0.3) * Math.sin((Math.PI * i) / (0.3 * sr));
    }
    const s = await store.addBytes({ name: 'yes.take.wav', kind: 'audio', label: 'yes', category: 'testing', metadata: { subject: 'b' }, lengthMs: 8000 }, encodeWav(pcm, { sampleRate: sr, channels: 1 }));
    const h = review();
    const det = await h['samples.detectEvents']({ id: s.id });
    expect(det.windows.map((w) => Math.round(w.eventStartMs / 100) / 10)).toEqual([1.5, 4, 6.2]);
    for (const w of det.windows) expect(w.endMs - w.startMs).toBe(1000);
    expect(det).toMatchObject({ windowMs: 1000, threshold: 4, droppedAtEdges: 0 });
    expect(det.floorDbfs).toBeLessThan(-50);
    // Louder than the quiet burst's peak over the floor: it drops out, the loud ones stay.
    const quiet = det.windows[1]!.peakDb;
    const strict = await h['samples.detectEvents']({ id: s.id, params: { threshold: 10 ** ((quiet + 3) / 20), windowMs: 500 } });
    expect(strict.windows.map((w) => Math.round(w.eventStartMs / 100) / 10)).toEqual([1.5, 6.2]);
    expect(strict.windows[0]!.endMs - strict.windows[0]!.startMs).toBe(500);

    // The person removed the middle window: two new samples, the original's label, category and metadata.
    const chosen = [det.windows[0]!, det.windows[2]!].map(({ startMs, endMs }) => ({ startMs, endMs }));
    const { samples } = await h['samples.split']({ id: s.id, jobId: 'auto', split: { mode: 'windows', windows: chosen } });
    expect(samples.map((x) => [x.label, x.category, x.metadata, x.lengthMs, (x.extra as { window_ms: number[] }).window_ms])).toEqual(
      chosen.map((w) => ['yes', 'testing', { subject: 'b' }, 1000, [w.startMs, w.endMs]]),
    );
    expect(store.get(s.id).name).toBe('yes.take.wav');
    await expect(h['samples.split']({ id: s.id, jobId: 'bad', split: { mode: 'windows', windows: [{ startMs: 7500, endMs: 8500 }] } })).rejects.toThrow(/runs past the sample's end at 8000 ms/);
    await expect(h['samples.detectEvents']({ id: s.id, params: { windowMs: 9000 } })).rejects.toThrow(/shorter than one window of 9000 ms/);
    // The project's window, when set, is the default length; an explicit one still wins.
    const withProject = reviewHandlers({ store, bus, hmacKey: async () => undefined, announce: () => {}, projectWindowMs: () => 700 }).handlers;
    expect((await withProject['samples.detectEvents']({ id: s.id })).windows.map((w) => w.endMs - w.startMs)).toEqual([700, 700, 700]);
    expect((await withProject['samples.detectEvents']({ id: s.id, params: { windowMs: 1200 } })).windowMs).toBe(1200);
  });

  it('refuses samples it cannot plot with a reason', async () => {
    const img = await store.addBytes({ name: 'cat.jpg', kind: 'image', label: 'cat', category: 'training' }, Buffer.from([0xff, 0xd8]));
    await expect(review()['samples.overview']({ id: img.id, width: 10 })).rejects.toMatchObject({ code: 'Unavailable' });
  });
});

describe('decoded-sample cache', () => {
  it('keeps recently used samples within its byte budget and shares a decode in flight', async () => {
    const a = await sensorSample(1000); // 1000 rows × 3 axes × 8 bytes = 24 000 bytes
    const b = await sensorSample(1001);
    const cache = new DecodedCache(store, 50_000);
    const [a1, a2] = await Promise.all([cache.get(a), cache.get(a)]);
    expect(a1).toBe(a2);
    await cache.get(b);
    expect(cache.bytes).toBe(48_024);
    const c = await sensorSample(1002);
    await cache.get(a); // a is now the most recent: b goes first
    await cache.get(c);
    expect(await cache.get(a)).toBe(a1);
    expect(cache.bytes).toBeLessThanOrEqual(50_000);
    cache.forget(a.id);
    expect(cache.has(a.id)).toBe(false);
    expect(cache.bytes).toBe(24_048);
  });
});
