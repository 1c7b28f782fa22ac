import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AudioLevels, RecordingStatus, Sample, Source } from '../../src-main/core/contract/contract.js';
import { playTone, startPulse, testPulseFromEnv } from '../support/audio/pulse.mjs';
import { dominantFrequencies, readWav } from '../support/audio/signal.mjs';
import { lineBoard } from '../support/boards/board-on-pty.js';
import { startCore, useCaptureWorker, useCleanups } from '../support/core-harness.js';
import { boardAndMicrophoneTake } from '../support/session-takes.js';

// The app side of microphones through the real parts: the core with a real AudioSupervisor (its
// capture process opens the PulseAudio null sink's monitor like a microphone), a tone played into
// the sink with pacat, a line board on a PTY, and everything driven through the contract.
const worker = useCaptureWorker();
const cleanups = useCleanups();

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const within = (actual: number, expected: number, fraction: number) => Math.abs(actual - expected) <= expected * fraction;

async function setup(env: Record<string, string>) {
  const h = await startCore(cleanups, { audio: { workerPath: worker(), env } });
  const levels = () => h.events.filter(([n]) => n === 'audio.levels').map(([, p]) => p as AudioLevels);
  return { ...h, levels };
}

describe('microphones in the app (real PulseAudio virtual microphone)', () => {
  it('lists the microphone, streams levels (not samples) to the UI, and records it with a board in one session', async () => {
    const server = testPulseFromEnv();
    const tone = playTone({ env: server.env, sink: server.sink, tones: [{ freq: 1000, amp: 0.5 }] });
    cleanups.push(() => tone.stop());
    const { call, events, saved, levels, dataDir } = await setup(server.env);

    const sources = await call<Source[]>('sources.list');
    const mic = sources.find((s) => s.id === 'audio:default');
    expect(mic).toMatchObject({ kind: 'audio', default: true, streaming: false });
    expect(await call('audio.settings')).toEqual({ deviceId: null, sampleRate: 16_000, preRollMs: 0 });
    expect(await call('audio.setSettings', { preRollMs: 300 })).toMatchObject({ sampleRate: 16_000, preRollMs: 300 });

    const info = await call<{ rateHz: number }>('stream.start', { sourceId: 'audio:default' });
    expect(info.rateHz).toBe(16_000);
    // Levels arrive batched (~30/s) and show the tone: a 0.5 sine is −9 dBFS RMS.
    await expect.poll(() => levels().filter((l) => l.rmsDbfs > -12).length, { timeout: 15_000 }).toBeGreaterThan(5);
    const t0 = levels().length;
    await pause(1000);
    const perSecond = levels().length - t0;
    expect(perSecond).toBeGreaterThan(15);
    expect(perSecond).toBeLessThanOrEqual(60);
    const last = levels().at(-1)!;
    expect(last).toMatchObject({ sourceId: 'audio:default', sampleRate: 16_000, clipping: false, silent: false });
    expect(last.rmsDbfs).toBeGreaterThan(-10.5);
    expect(last.rmsDbfs).toBeLessThan(-7.5);
    expect(last.waveform.length % 2).toBe(0);
    expect(events.some(([n, p]) => n === 'stream.batch' && (p as { sourceId: string }).sourceId === 'audio:default')).toBe(false);
    // The choice is remembered.
    expect(await call('audio.settings')).toMatchObject({ deviceId: 'default' });

    const { pty } = await lineBoard(cleanups, ['--rate', '100']);
    await call('serial.addPath', { path: pty.hostPath });
    const serial = `serial:${pty.hostPath}`;
    await call('stream.start', { sourceId: serial });

    const st = await call<RecordingStatus>('record.start', { sourceIds: ['audio:default', serial], label: 'hum', category: 'training', lengthMs: 2000, metadata: { room: 'lab' }, queue: false });
    expect(st).toMatchObject({ state: 'recording', interruptions: [] });
    await pause(600);
    await call('record.mark', { sessionId: st.sessionId, label: 'beep' });
    await pause(400);
    await call('record.mark', { sessionId: st.sessionId, label: null });
    const done = await saved(st.sessionId, 20_000);
    expect(done).toMatchObject({ state: 'saved', error: null, interruptions: [] });
    expect(done.sampleIds).toHaveLength(2);

    const { samples } = await call<{ samples: Sample[] }>('samples.list', {});
    const wavSample = samples.find((s) => s.kind === 'audio')!;
    const boardSample = samples.find((s) => s.kind === 'sensor')!;
    expect(boardSample).toMatchObject({ label: 'hum', metadata: { room: 'lab', session: st.sessionId }, incomplete: false });
    expect(wavSample).toMatchObject({ label: 'hum', category: 'training', state: 'local', incomplete: false, metadata: { room: 'lab', session: st.sessionId } });
    // Exactly the set length plus the pre-roll: counted in frames, not by a timer.
    expect(wavSample.extra).toMatchObject({ rows: 16_000 * 2.3, sample_rate: 16_000, pre_roll_ms: 300, source: 'audio:default' });
    expect(wavSample.lengthMs).toBe(2300);
    const wav = await readWav(join(dataDir, wavSample.file));
    expect(wav).toMatchObject({ sampleRate: 16_000, channels: 1, bits: 16, frames: 36_800 });
    const [peak] = dominantFrequencies(wav.samples, 16_000, 1);
    expect(within(peak!.freq, 1000, 0.01), `dominant ${peak!.freq} Hz`).toBe(true);
    // The marked event is in the WAV's own frame indices; the rest carries the sample's label.
    const labels = wavSample.structuredLabels!;
    expect(labels.map((l) => l.label)).toEqual(['hum', 'beep', 'hum']);
    expect(labels.at(-1)!.endIndex).toBe(36_799);
    const beep = labels[1]!;
    expect(within(beep.endIndex - beep.startIndex + 1, 6400, 0.25)).toBe(true); // ~400 ms at 16 kHz
    expect(boardSample.structuredLabels!.map((l) => l.label)).toEqual(['hum', 'beep', 'hum']);
  }, 60_000);

  it('a board and a cold microphone in one session: both takes begin together, each exactly the set length from there', async () => {
    const server = testPulseFromEnv();
    const tone = playTone({ env: server.env, sink: server.sink, tones: [{ freq: 1000, amp: 0.5 }] });
    cleanups.push(() => tone.stop());
    const { call, saved } = await setup(server.env);
    const { pty } = await lineBoard(cleanups, ['--rate', '100']);
    await call('serial.addPath', { path: pty.hostPath });
    const serial = `serial:${pty.hostPath}`;
    await call('stream.start', { sourceId: serial });
    // Counted once the reader's estimate has settled (see countingRate): give it a few seconds of lines.
    await pause(3000);
    // The microphone is not capturing yet: the session starts it, and it takes a while to deliver audio.
    const { done, board, mic, boardAt, micAt, startupMs } = await boardAndMicrophoneTake({ call, saved }, { sourceIds: [serial, 'audio:default'], lengthMs: 1500, boardHz: 100 });
    expect(done).toMatchObject({ state: 'saved', error: null });
    expect(board.extra).toMatchObject({ rows: 150 });
    expect(mic.extra).toMatchObject({ rows: 24_000 });
    // The mark came right after the session started: in both takes it lands at the same moment
    // from their start, although the board was streaming all through the microphone's start-up.
    expect(Math.abs(boardAt - micAt), `board mark at ${boardAt} s, microphone mark at ${micAt} s, start-up ${startupMs.toFixed(0)} ms`).toBeLessThan(0.1);
  }, 60_000);

  it('a microphone pulled out mid-recording: a typed error in the status, the partial WAV kept as incomplete', async () => {
    const pulse = await startPulse({ sink: 'unplugme' }); // a sound server of its own, to pull out
    cleanups.push(() => pulse.stop());
    const tone = playTone({ env: pulse.env, sink: pulse.sink, tones: [{ freq: 1000, amp: 0.5 }] });
    cleanups.push(() => tone.stop());
    const { call, events, saved, dataDir } = await setup(pulse.env);
    const mic = (await call<Source[]>('sources.list')).find((s) => s.kind === 'audio' && !s.default)!;
    expect(mic).toBeDefined();
    await call('stream.start', { sourceId: mic.id });
    const st = await call<RecordingStatus>('record.start', { sourceIds: [mic.id], label: 'cut', category: 'training', queue: true });
    await pause(1500);
    await tone.stop();
    await pulse.stop(); // "unplug"
    const done = await saved(st.sessionId, 30_000);
    expect(done.state).toBe('saved');
    expect(done.interruptions).toEqual([{ sourceId: mic.id, error: expect.objectContaining({ code: 'Disconnected', message: expect.stringMatching(/disconnected/) }) }]);
    // The interruption was told while it happened, before saving.
    expect(events.some(([n, p]) => n === 'record.state' && (p as RecordingStatus).state === 'recording' && (p as RecordingStatus).interruptions.length === 1)).toBe(true);
    const { samples } = await call<{ samples: Sample[] }>('samples.list', {});
    const s = samples.find((x) => x.id === done.sampleIds[0])!;
    expect(s).toMatchObject({ kind: 'audio', incomplete: true, state: 'local', label: 'cut' });
    expect(s.note).toMatch(/incomplete/);
    expect((await readWav(join(dataDir, s.file))).frames).toBeGreaterThan(16_000);
    // The device list noticed it is gone.
    await expect.poll(async () => (await call<Source[]>('sources.list')).filter((x) => x.kind === 'audio').length, { timeout: 10_000 }).toBe(0);
  }, 60_000);
});
