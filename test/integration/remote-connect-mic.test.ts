import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { playTone, privateSink, testPulseFromEnv } from '../support/audio/pulse.mjs';
import { dominantFrequencies, readWav } from '../support/audio/signal.mjs';
import { listSamples, startConnect, startPlatform, type Cleanups } from '../support/connect-run.js';

/**
 * `capture-desk connect --microphone` against the PulseAudio test microphone (run inside
 * test/env.sh): the platform asks for audio, the WAV lands in the category's files endpoint.
 */
const cleanups: Cleanups = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

let server: { env: { PULSE_SERVER: string }; sink: string } | null = null;
beforeAll(() => {
  try {
    server = testPulseFromEnv();
  } catch {
    server = null;
  }
});

/** A private microphone playing a tone: the process started with this env hears it as its default input. */
async function microphoneWithTone(freq: number): Promise<Record<string, string>> {
  const priv = await privateSink(server!.env);
  cleanups.push(() => priv.unload());
  const tone = playTone({ env: priv.env, sink: priv.sink, tones: [{ freq, amp: 0.5 }] });
  cleanups.push(() => tone.stop());
  return priv.env;
}

describe('capture-desk connect: microphone', { timeout: 45_000 }, () => {
  it('start-sampling records the default microphone: a 16 kHz WAV of what it heard, in the asked category, finished after the upload', async () => {
    if (!server) return expect.fail('run inside bash test/env.sh (PulseAudio test microphone)');
    const env = await microphoneWithTone(1000);
    const p = await startPlatform(cleanups);
    const c = await startConnect(cleanups, p, ['--microphone', '--device-id', 'lab-mic-1'], { env });
    const hello = await c.waitEvent((e) => e.event === 'connected', 15_000);
    expect(hello).toEqual({ event: 'connected', device_id: 'lab-mic-1', device_name: 'lab-mic-1', sensors: [{ name: 'Microphone', frequencies: [16000], max_sample_length_s: expect.any(Number) }] });
    expect(p.remote.connected()).toMatchObject([{ deviceId: 'lab-mic-1', deviceType: 'CAPTURE_DESK', encoding: 'json' }]);

    let uploadsAtFinish: number[] = [];
    const finishedSeen = p.remote.waitFor((m) => {
      if (m.message.sampleFinished !== true) return false;
      uploadsAtFinish = p.ingestion.requests.filter((r) => r.path === '/api/testing/files').map((r) => r.status);
      return true;
    }, 15_000);
    p.ingestion.setFaults({ delayMs: 300 });
    const answer = await p.startSampling('lab-mic-1', { label: 'beep', lengthMs: 1000, category: 'testing', intervalMs: 1000 / 16000, sensor: 'Microphone' });
    expect(answer).toMatchObject({ success: true });
    const saved = await c.waitEvent((e) => e.event === 'sample-saved');
    await c.waitEvent((e) => e.event === 'sample-finished');
    await finishedSeen;
    expect(uploadsAtFinish).toEqual([200]);
    expect(c.events.map((e) => e.event)).toEqual(['connected', 'sample-requested', 'sample-saved', 'sample-finished']);
    expect(c.events[1]).toEqual({ event: 'sample-requested', device_id: 'lab-mic-1', label: 'beep', length_ms: 1000, sensor: 'Microphone', path: '/api/testing/data' });

    const log = p.log('lab-mic-1');
    const afterRequest = log.slice(log.findIndex((m) => m.dir === 'out' && m.type === 'sample') + 1).filter((m) => m.dir === 'in').map((m) => m.type);
    expect(afterRequest).toEqual(['sample', 'sampleStarted', 'sampleProcessing', 'sampleUploading', 'sampleFinished']);

    // On the platform: one WAV in testing, 1 s at 16 kHz, and it is the tone the microphone heard.
    expect(p.ingestion.samples).toHaveLength(1);
    const stored = p.ingestion.samples[0]!;
    expect(stored).toMatchObject({ category: 'testing', label: 'beep' });
    expect(stored.originalName).toMatch(/\.wav$/);
    const dir = await mkdtemp(join(tmpdir(), 'cd-connect-wav-'));
    await writeFile(join(dir, 'stored.wav'), stored.bytes);
    const wav = await readWav(join(dir, 'stored.wav'));
    expect(wav).toMatchObject({ sampleRate: 16_000, channels: 1, frames: 16_000 });
    expect(Math.abs(dominantFrequencies(wav.samples, 16_000, 1)[0]!.freq - 1000)).toBeLessThan(10);

    expect(await c.stop()).toBe(0);
    const local = await listSamples(c.dataDir);
    expect(local).toMatchObject([{ id: saved.sample_id, kind: 'audio', state: 'uploaded', label: 'beep', category: 'testing' }]);
    expect(local[0]!.platform.note).toMatch(/requested by the platform \(remote management, device lab-mic-1\)/);
    expect((await readFile(local[0]!.file)).equals(stored.bytes)).toBe(true);
  });

  it('a microphone that is not there: the error lists the ones there are, exit 1', async () => {
    if (!server) return expect.fail('run inside bash test/env.sh (PulseAudio test microphone)');
    const p = await startPlatform(cleanups);
    const c = await startConnect(cleanups, p, ['--microphone', 'No Such Microphone'], { env: server.env });
    expect(await c.exited).toBe(1);
    expect(c.stderr()).toMatch(/No microphone "No Such Microphone"\. There are: "System default input" \(default\)/);
    expect(p.remote.hellos).toBe(0);
  });
});
