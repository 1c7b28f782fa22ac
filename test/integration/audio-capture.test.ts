import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AudioRecording } from '../../src-main/core/audio/audio-recording.js';
import { AudioSupervisor, type AudioSupervisorOptions } from '../../src-main/core/audio/audio-supervisor.js';
import { CoreError } from '../../src-main/core/errors.js';
import { buildCaptureWorker } from '../support/audio/build-worker.mjs';
import { useCaptureBench } from '../support/audio/capture-bench.js';
import { playTone, privateSink, startPulse, testPulseFromEnv, type PrivateSink } from '../support/audio/pulse.mjs';
import { captureBreaks, dominantFrequencies, readWav, spectrum, type Tone } from '../support/audio/signal.mjs';

// Real capture, no mocks: node-web-audio-api opens a PulseAudio null sink's monitor through ALSA
// like a microphone, pacat plays known tones into the sink, and the WAV that comes out is
// measured. test/run.sh starts the server (PULSE_SERVER) and its sink (CAPTURE_DESK_TEST_SINK).
const run = promisify(execFile);
let workerPath: string;
let server: { env: { PULSE_SERVER: string }; sink: string };
const bench = useCaptureBench('audio-it-');

beforeAll(async () => {
  server = testPulseFromEnv();
  workerPath = await buildCaptureWorker();
}, 60_000);

function supervisor(env: Record<string, string>, o: Partial<AudioSupervisorOptions> = {}): AudioSupervisor {
  return bench.supervisor(workerPath, env, o);
}

/** Plays `tones` into `sink`, records `lengthMs` at `rate` from the default input, returns the WAV. */
async function recordTones(tones: Tone[], o: { rate: number; lengthMs: number; sink: string; env: Record<string, string> }) {
  const tone = playTone({ env: o.env, sink: o.sink, tones });
  try {
    const sup = supervisor(o.env);
    await sup.start({ sampleRate: o.rate });
    await sup.whenLive(10_000);
    await new Promise((r) => setTimeout(r, 200)); // past the filter's start-up
    const rec = await AudioRecording.start(sup, bench.store, { label: 'tone', category: 'training', metadata: { tones: tones.map((t) => t.freq).join('+') }, lengthMs: o.lengthMs });
    const outcome = await rec.done;
    await sup.stop();
    const path = join(bench.dir, outcome.sample.file);
    return { ...outcome, path, wav: await readWav(path), underruns: tone.underruns };
  } finally {
    await tone.stop();
  }
}

const soxSeconds = async (path: string) => Number((await run('sox', ['--i', '-D', path])).stdout.trim());
const within = (actual: number, expected: number, fraction: number) => Math.abs(actual - expected) <= expected * fraction;

describe('audio capture from a real (virtual) microphone', () => {
  it('records 2 s of a 1 kHz tone at 16 kHz: duration, rate and frequency within 1%, no sample lost', async () => {
    const r = await recordTones([{ freq: 1000, amp: 0.5 }], { rate: 16_000, lengthMs: 2000, sink: server.sink, env: server.env });
    expect(r.error).toBeNull();
    expect(r.wav).toMatchObject({ sampleRate: 16_000, channels: 1, bits: 16 });
    expect(within(r.wav.frames / 16_000, 2, 0.01)).toBe(true);
    expect(within(await soxSeconds(r.path), 2, 0.01)).toBe(true);
    const [peak] = dominantFrequencies(r.wav.samples, 16_000, 1);
    expect(within(peak!.freq, 1000, 0.01), `dominant ${peak!.freq} Hz`).toBe(true);
    // A dropped, repeated or made-up sample would break the tone.
    expect(captureBreaks(r.wav.samples, 1000, 16_000, { playerUnderruns: r.underruns })).toMatchObject({ blamed: 0 });
    expect(r.sample).toMatchObject({ kind: 'audio', label: 'tone', lengthMs: 2000, incomplete: false, metadata: { tones: '1000' } });
  });

  describe('on a sink of its own', () => {
    let priv: PrivateSink;
    beforeEach(async () => {
      priv = await privateSink(server.env);
    });
    afterEach(() => priv.unload());

    it('records two tones (440 Hz + 1500 Hz): both found within 1%', async () => {
      const r = await recordTones([{ freq: 440, amp: 0.3 }, { freq: 1500, amp: 0.3 }], { rate: 16_000, lengthMs: 2000, sink: priv.sink, env: priv.env });
      expect(within(r.wav.frames, 32_000, 0.01)).toBe(true);
      const peaks = dominantFrequencies(r.wav.samples, 16_000, 2).map((p) => p.freq).sort((a, b) => a - b);
      expect(within(peaks[0]!, 440, 0.01), `peaks ${peaks.join(', ')}`).toBe(true);
      expect(within(peaks[1]!, 1500, 0.01), `peaks ${peaks.join(', ')}`).toBe(true);
    });

    it('resamples the 48 kHz device to 8 kHz without aliasing: a 6 kHz tone does not fold to 2 kHz', async () => {
      const r = await recordTones([{ freq: 1000, amp: 0.4 }, { freq: 6000, amp: 0.4 }], { rate: 8000, lengthMs: 2000, sink: priv.sink, env: priv.env });
      expect(r.wav).toMatchObject({ sampleRate: 8000, frames: 16_000 });
      const { mag, binHz } = spectrum(r.wav.samples, 8000);
      const level = (f: number) => Math.max(...Array.from({ length: 7 }, (_, k) => mag[Math.round(f / binHz) - 3 + k]!));
      const aliasDb = 20 * Math.log10(level(2000) / level(1000));
      expect(aliasDb).toBeLessThan(-40);
      expect(within(dominantFrequencies(r.wav.samples, 8000, 1)[0]!.freq, 1000, 0.01)).toBe(true);
    });

    it('records at 44.1 kHz (a rate with no common factor with the device’s 48 kHz)', async () => {
      const r = await recordTones([{ freq: 3000, amp: 0.5 }], { rate: 44_100, lengthMs: 1000, sink: priv.sink, env: priv.env });
      expect(r.wav).toMatchObject({ sampleRate: 44_100, frames: 44_100 });
      expect(within(dominantFrequencies(r.wav.samples, 44_100, 1)[0]!.freq, 3000, 0.01)).toBe(true);
      expect(captureBreaks(r.wav.samples, 3000, 44_100, { threshold: 600, playerUnderruns: r.underruns })).toMatchObject({ blamed: 0 });
    });

    it('keeps the pre-roll: the recording starts before the record key was pressed', async () => {
      const tone = playTone({ env: priv.env, sink: priv.sink, tones: [{ freq: 997, amp: 0.5 }] });
      try {
        const sup = supervisor(priv.env, { maxPreRollMs: 2000 });
        await sup.start({ sampleRate: 16_000 });
        await sup.whenLive(10_000);
        await new Promise((r) => setTimeout(r, 800));
        const rec = await AudioRecording.start(sup, bench.store, { label: 'pre', category: 'training', lengthMs: 1000, preRollMs: 500 });
        const { sample } = await rec.done;
        expect(sample.extra).toMatchObject({ rows: 24_000, pre_roll_ms: 500 });
        const wav = await readWav(join(bench.dir, sample.file));
        expect(captureBreaks(wav.samples, 997, 16_000, { playerUnderruns: tone.underruns })).toMatchObject({ blamed: 0 }); // joined seamlessly
      } finally {
        await tone.stop();
      }
    });

    it('keeps the partial recording when the capture process dies (SIGABRT), then brings capture back', async () => {
      const tone = playTone({ env: priv.env, sink: priv.sink, tones: [{ freq: 1000, amp: 0.5 }] });
      try {
        const sup = supervisor(priv.env, { restartDelaysMs: [200] });
        await sup.start({ sampleRate: 16_000 });
        await sup.whenLive(10_000);
        const firstPid = sup.status.workerPid!;
        const rec = await AudioRecording.start(sup, bench.store, { label: 'cut', category: 'training', lengthMs: 10_000 });
        await new Promise((r) => setTimeout(r, 1000));
        process.kill(firstPid, 'SIGABRT'); // what node-web-audio-api does when a device fails
        const { sample, error } = await rec.done;
        expect(error?.code).toBe('Unavailable');
        expect(error?.message).toMatch(/signal SIGABRT/);
        expect(sample.incomplete).toBe(true);
        expect((await readWav(join(bench.dir, sample.file))).frames).toBeGreaterThan(8000);
        await expect.poll(() => sup.status.state, { timeout: 10_000 }).toBe('capturing');
        expect(sup.status.workerPid).not.toBe(firstPid);
        await sup.whenLive(10_000);
      } finally {
        await tone.stop();
      }
    });
  });

  it('reports a microphone that goes away mid-recording as Disconnected and keeps what was recorded', async () => {
    const pulse = await startPulse({ sink: 'unplugme' }); // a sound server of its own, to pull out
    const tone = playTone({ env: pulse.env, sink: pulse.sink, tones: [{ freq: 1000, amp: 0.5 }] });
    try {
      const sup = supervisor(pulse.env);
      const devices = await sup.listDevices();
      const pick = devices.find((d) => !d.default)!; // a concrete device, as picked from the list
      await sup.start({ deviceId: pick.id, sampleRate: 16_000 });
      await sup.whenLive(10_000);
      const rec = await AudioRecording.start(sup, bench.store, { label: 'unplugged', category: 'training', lengthMs: 30_000 });
      await new Promise((r) => setTimeout(r, 1500));
      await tone.stop();
      await pulse.stop(); // "unplug"
      const { sample, error } = await rec.done;
      expect(error?.code).toBe('Disconnected');
      expect(error?.details).toMatchObject({ disconnected: true, deviceId: pick.id });
      expect(error?.message).toMatch(/was disconnected/);
      expect(sample.incomplete).toBe(true);
      const wav = await readWav(join(bench.dir, sample.file));
      expect(wav.frames).toBeGreaterThan(16_000); // the 1.5 s before the unplug (+ up to the detection)
      expect(wav.frames).toBeLessThan(16_000 * 6);
      expect(sup.status.state).toBe('failed');
      expect(await sup.listDevices()).toEqual([]);
    } finally {
      await tone.stop();
      await pulse.stop();
    }
  }, 40_000);

  it('with no capture device at all: a typed error, and this process lives on (no native abort)', async () => {
    const sup = supervisor({ PULSE_SERVER: 'unix:/nonexistent/capture-desk-no-such-socket' });
    expect(await sup.listDevices()).toEqual([]);
    const err = await sup.start().then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(CoreError);
    expect(err).toMatchObject({ code: 'Unavailable', details: { reason: 'no-device' } });
    expect((err as CoreError).message).toMatch(/No audio input device found/);
    const missing = await sup.start({ deviceId: '12345' }).then(() => null, (e: unknown) => e);
    expect(missing).toMatchObject({ code: 'Unavailable' }); // no input at all wins over "not that one"
    expect(sup.status.state).toBe('failed');
  });
});

