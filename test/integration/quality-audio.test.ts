import { beforeAll, describe, expect, it } from 'vitest';
import { AudioRecording } from '../../src-main/core/audio/audio-recording.js';
import { qualityGate } from '../../src-main/core/samples/quality/policy.js';
import { buildCaptureWorker } from '../support/audio/build-worker.mjs';
import { useCaptureBench } from '../support/audio/capture-bench.js';
import { playTone, testPulseFromEnv } from '../support/audio/pulse.mjs';

// The quality checks on WAVs recorded by the real capture stack (PulseAudio null sink as the
// microphone): a clean tone must pass, a near-silent input must be caught and held back.
let workerPath: string;
let server: { env: { PULSE_SERVER: string }; sink: string };
const bench = useCaptureBench('quality-audio-', { quality: qualityGate(() => ({ qualityHold: 'errors', qualityMinLengthMs: 500 })) });

beforeAll(async () => {
  server = testPulseFromEnv();
  workerPath = await buildCaptureWorker();
}, 60_000);

async function record(amp: number) {
  const tone = playTone({ env: server.env, sink: server.sink, tones: [{ freq: 1000, amp }] });
  try {
    const sup = bench.supervisor(workerPath, server.env);
    await sup.start({ sampleRate: 16_000 });
    await sup.whenLive(10_000);
    await new Promise((r) => setTimeout(r, 200));
    const rec = await AudioRecording.start(sup, bench.store, { label: 'q', category: 'training', lengthMs: 1500, queue: true });
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
