import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AudioRecording } from '../../src-main/core/audio/audio-recording.js';
import { AudioSupervisor } from '../../src-main/core/audio/audio-supervisor.js';
import { silentLogger } from '../../src-main/core/log.js';
import { qualityGate } from '../../src-main/core/samples/quality/policy.js';
import { SampleStore } from '../../src-main/core/samples/sample-store.js';
import { buildCaptureWorker } from '../support/audio/build-worker.mjs';
import { playTone, testPulseFromEnv } from '../support/audio/pulse.mjs';

// The quality checks on WAVs recorded by the real capture stack (PulseAudio null sink as the
// microphone): a clean tone must pass, a near-silent input must be caught and held back.
let workerPath: string;
let server: { env: { PULSE_SERVER: string }; sink: string };
let dir: string;
let store: SampleStore;
const sups: AudioSupervisor[] = [];

beforeAll(async () => {
  server = testPulseFromEnv();
  workerPath = await buildCaptureWorker();
}, 60_000);
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'quality-audio-'));
  store = await SampleStore.open(dir, silentLogger, { quality: qualityGate(() => ({ qualityHold: 'errors', qualityMinLengthMs: 500 })) });
});
afterEach(async () => {
  await Promise.all(sups.splice(0).map((s) => s.close()));
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

async function record(amp: number) {
  const tone = playTone({ env: server.env, sink: server.sink, tones: [{ freq: 1000, amp }] });
  try {
    const sup = new AudioSupervisor({ log: silentLogger, workerPath, env: { ...process.env, ...server.env }, restartDelaysMs: false });
    sups.push(sup);
    await sup.start({ sampleRate: 16_000 });
    await sup.whenLive(10_000);
    await new Promise((r) => setTimeout(r, 200));
    const rec = await AudioRecording.start(sup, store, { label: 'q', category: 'training', lengthMs: 1500, queue: true });
    const { sample } = await rec.done;
    await sup.stop();
    return sample;
  } finally {
    await tone.stop();
  }
}

describe('data quality of real microphone captures', () => {
  it('passes a clean tone and queues it', async () => {
    const s = await record(0.5);
    expect(s.quality!.findings).toEqual([]);
    expect([s.state, s.flagged, s.heldBack]).toEqual(['queued', null, false]);
  }, 30_000);

  it('catches a near-silent input (under −60 dBFS) and holds it back', async () => {
    const s = await record(0.0005);
    expect(s.quality!.findings).toEqual([expect.objectContaining({ code: 'silence', severity: 'error' })]);
    expect([s.state, s.flagged, s.heldBack]).toEqual(['local', 'error', true]);
  }, 30_000);
});
