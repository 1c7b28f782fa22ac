import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AudioRecording } from '../../src-main/core/audio/audio-recording.js';
import { AudioSupervisor, type AudioSupervisorOptions, type DeviceChange } from '../../src-main/core/audio/audio-supervisor.js';
import type { LevelReport } from '../../src-main/core/audio/levels.js';
import { CoreError } from '../../src-main/core/errors.js';
import { useCaptureBench } from '../support/audio/capture-bench.js';
import { rejectionOf } from '../support/errors.js';
import { readWav, toneDiscontinuities } from '../support/audio/signal.mjs';

// The supervisor and recorder against a scripted capture process (same protocol, no sound
// server): process deaths here are real SIGABRTs, raised by process.abort() in the fake.
const FAKE = fileURLToPath(new URL('../support/audio/fake-worker.mjs', import.meta.url));

const bench = useCaptureBench('audio-sup-');

function supervisor(script: Record<string, unknown> = {}, o: Partial<AudioSupervisorOptions> = {}): AudioSupervisor {
  return bench.supervisor(FAKE, { FAKE_AUDIO: JSON.stringify(script) }, o);
}

const rejection = (p: Promise<unknown>) => rejectionOf(p, CoreError);

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('AudioSupervisor', () => {
  it('lists devices through the capture process, default first', async () => {
    const devices = await supervisor().listDevices();
    expect(devices.map((d) => d.id)).toEqual(['default', 'fake-1']);
    expect(devices[0]!.default).toBe(true);
  });

  it('captures: live state, PCM batches at the asked rate, level reports batched to ≤ 60/s', async () => {
    const sup = supervisor({ freq: 440, batchMs: 5 });
    const st = await sup.start({ sampleRate: 16_000 });
    expect(st).toMatchObject({ state: 'capturing', device: { id: 'default' }, sampleRate: 16_000 });
    let frames = 0;
    let batches = 0;
    const reports: LevelReport[] = [];
    sup.pcm.on((b) => {
      expect(b.firstFrame).toBe(frames); // contiguous
      frames += b.pcm.length;
      batches++;
    });
    sup.levels.on((r) => reports.push(r));
    await sup.whenLive();
    await new Promise((r) => setTimeout(r, 1000));
    const { frames: total } = await sup.stop();
    expect(total).toBeGreaterThanOrEqual(frames);
    expect(frames).toBeGreaterThan(14_000);
    expect(batches).toBeGreaterThan(60); // the fake sends every 5 ms…
    expect(reports.length).toBeLessThanOrEqual(61); // …the UI gets at most 60 reports a second
    expect(reports.at(-1)!.rmsDbfs).toBeCloseTo(-9, 0);
    expect(sup.status.state).toBe('idle');
  });

  it('records a WAV sample of exactly the set length, with label, category and metadata', async () => {
    const sup = supervisor({ freq: 1000 });
    await sup.start({ deviceId: 'fake-1', sampleRate: 16_000 });
    const rec = await AudioRecording.start(sup, bench.store, { label: 'yes', category: 'testing', metadata: { subject: 'ana' }, lengthMs: 500, queue: true });
    const { sample, error } = await rec.done;
    expect(error).toBeNull();
    expect(sample).toMatchObject({ kind: 'audio', label: 'yes', category: 'testing', metadata: { subject: 'ana' }, lengthMs: 500, incomplete: false, state: 'queued' });
    expect(sample.name).toMatch(/^yes\.[0-9a-f]{8}\.wav$/);
    expect(sample.extra).toMatchObject({ rows: 8000, interval_ms: 0.0625, sample_rate: 16_000, device: 'Fake microphone' });
    const wav = await readWav(join(bench.dir, sample.file));
    expect(wav).toMatchObject({ sampleRate: 16_000, channels: 1, frames: 8000 });
    expect(toneDiscontinuities(wav.samples, 1000, 16_000, { skip: 2 }).count).toBe(0);
  });

  it('starts a recording with the pre-roll: the audio from before, joined without a gap or a repeat', async () => {
    const sup = supervisor({ freq: 997 }, { maxPreRollMs: 1000 });
    await sup.start({ sampleRate: 8000 });
    await new Promise((r) => setTimeout(r, 600));
    const rec = await AudioRecording.start(sup, bench.store, { label: null, category: 'training', lengthMs: 250, preRollMs: 400 });
    expect(rec.preRollFrames).toBe(3200);
    const { sample } = await rec.done;
    expect(sample.extra).toMatchObject({ rows: 3200 + 2000, pre_roll_ms: 400 });
    expect(sample.name).toMatch(/^unlabeled\./);
    const wav = await readWav(join(bench.dir, sample.file));
    expect(toneDiscontinuities(wav.samples, 997, 8000, { skip: 2 }).count).toBe(0);
  });

  it('records until stopped when no length is set', async () => {
    const sup = supervisor();
    await sup.start();
    const rec = await AudioRecording.start(sup, bench.store, { label: 'x', category: 'training' });
    await new Promise((r) => setTimeout(r, 300));
    const { sample } = await rec.stop();
    expect(sample.extra.rows as number).toBeGreaterThan(3000);
    expect(sample.incomplete).toBe(false);
  });

  it('ends a recording, complete, when the capture is stopped under it', async () => {
    const sup = supervisor();
    await sup.start();
    const rec = await AudioRecording.start(sup, bench.store, { label: 'x', category: 'training', lengthMs: 60_000 });
    await new Promise((r) => setTimeout(r, 200));
    await sup.stop();
    const { sample, error } = await rec.done;
    expect(error).toBeNull();
    expect(sample.incomplete).toBe(false);
    expect(sample.extra.rows as number).toBeGreaterThan(1000);
  });

  it('turns an abort while opening the device into a typed error; this process lives on', async () => {
    const sup = supervisor({ abortOnStart: true });
    const err = await rejection(sup.start());
    expect(err.code).toBe('Unavailable');
    expect(err.message).toMatch(/Could not open the default microphone: the audio capture process stopped \(signal SIGABRT\)/);
    expect(err.details).toMatchObject({ reason: 'open-failed', signal: 'SIGABRT' });
    expect(sup.status.state).toBe('failed');
  });

  it('keeps the part recorded before the capture process died as an incomplete sample, then restarts capture', async () => {
    const sup = supervisor({ abortAfterMs: 700 }, { restartDelaysMs: [100] });
    await sup.start();
    const rec = await AudioRecording.start(sup, bench.store, { label: 'cut', category: 'training', lengthMs: 5000 });
    const errors: CoreError[] = [];
    sup.errors.on((e) => errors.push(e));
    const { sample, error } = await rec.done;
    expect(error?.code).toBe('Unavailable');
    expect(error?.message).toMatch(/audio capture process stopped \(signal SIGABRT\)/);
    expect(errors).toHaveLength(1);
    expect(sample.incomplete).toBe(true);
    expect(sample.note).toMatch(/^incomplete: /);
    const rows = sample.extra.rows as number;
    expect(rows).toBeGreaterThan(5000);
    expect(rows).toBeLessThan(16_000);
    const wav = await readWav(join(bench.dir, sample.file));
    expect(wav.frames).toBe(rows); // a valid WAV of what was recorded
    // The app's supervisor brings the capture back by itself.
    await expect.poll(() => sup.status.state, { timeout: 5000 }).toBe('capturing');
  });

  it('reports a device that dropped out as Disconnected and keeps the partial recording', async () => {
    const sup = supervisor({ faultAfterMs: 400 });
    await sup.start({ deviceId: 'fake-1' });
    const rec = await AudioRecording.start(sup, bench.store, { label: 'gone', category: 'training', lengthMs: 5000 });
    const { sample, error } = await rec.done;
    expect(error?.code).toBe('Disconnected');
    expect(error?.details).toMatchObject({ disconnected: true });
    expect(sample.incomplete).toBe(true);
    expect(sup.status).toMatchObject({ state: 'failed', error: { code: 'Disconnected' } });
  });

  it('passes on the capture process’s own refusals (no device, unknown device) with their codes', async () => {
    const none = supervisor({ startError: { code: 'Unavailable', message: 'No audio input device found.' } });
    expect((await rejection(none.start())).message).toBe('No audio input device found.');
    expect((await rejection(supervisor().start({ deviceId: 'nope' }))).code).toBe('NotFound');
  });

  it('refuses a sample rate outside 8–48 kHz', async () => {
    const sup = supervisor();
    expect((await rejection(sup.start({ sampleRate: 4000 }))).code).toBe('InvalidArguments');
    expect((await rejection(sup.start({ sampleRate: 96_000 }))).code).toBe('InvalidArguments');
    expect((await rejection(sup.start({ sampleRate: 16_000.5 }))).code).toBe('InvalidArguments');
  });

  it('refuses to record when nothing is capturing', async () => {
    const err = await rejection(AudioRecording.start(supervisor(), bench.store, { label: null, category: 'training' }));
    expect(err.code).toBe('Unavailable');
  });

  it('notices devices appearing and disappearing; the watch ends with its signal', async () => {
    const a = { id: 'default', name: 'System default input', default: true };
    const b = { id: 'usb', name: 'USB mic', default: false };
    const c = { id: 'hs', name: 'Headset', default: false };
    const sup = supervisor({ deviceSequence: [[a, b], [a, b], [a, b, c], [a, c], [a, c]] }, { devicePollMs: 50 });
    const changes: DeviceChange[] = [];
    const ac = new AbortController();
    sup.watchDevices((ch) => changes.push(ch), ac.signal);
    await expect.poll(() => changes.length, { timeout: 5000 }).toBeGreaterThanOrEqual(3);
    ac.abort();
    expect(changes[0]).toMatchObject({ added: [], removed: [] }); // the list as it is
    expect(changes[1]).toMatchObject({ added: [c], removed: [] });
    expect(changes[2]).toMatchObject({ added: [], removed: [b] });
    const n = changes.length;
    await new Promise((r) => setTimeout(r, 200));
    expect(changes.length).toBe(n);
  });

  it('gives a watcher the list before any change, even when poll answers arrive together', async () => {
    const a = { id: 'default', name: 'System default input', default: true };
    const c = { id: 'hs', name: 'Headset', default: false };
    // Polls every 20 ms while the first answer is held for 300 ms: the answers come in one burst.
    const sup = supervisor({ deviceSequence: [[a], [a], [a, c]], holdListsMs: 300 }, { devicePollMs: 20 });
    const changes: DeviceChange[] = [];
    const ac = new AbortController();
    sup.watchDevices((ch) => changes.push(ch), ac.signal);
    await expect.poll(() => changes.length, { timeout: 5000 }).toBeGreaterThanOrEqual(2);
    ac.abort();
    expect(changes[0]).toMatchObject({ devices: [a], added: [], removed: [] });
    expect(changes[1]).toMatchObject({ added: [c], removed: [] });
  });

  it('leaves no capture process behind after close()', async () => {
    const sup = supervisor();
    await sup.start();
    const pid = sup.status.workerPid!;
    expect(alive(pid)).toBe(true);
    await sup.close();
    await expect.poll(() => alive(pid), { timeout: 3000 }).toBe(false);
  });
});
