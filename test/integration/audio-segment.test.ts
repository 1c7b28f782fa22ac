import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { privateSink, testPulseFromEnv, type PrivateSink } from '../support/audio/pulse.mjs';
import { readWav } from '../support/audio/signal.mjs';
import { spokenTake } from '../support/audio/speech.js';
import { CLI, assertBuilt, runCli } from '../support/cli.js';

// The keyword flow through the virtual microphone: a person says eight words into the microphone
// (espeak-ng over room noise and hum, played into the test PulseAudio sink), `record audio` takes
// it, `samples split --auto` cuts one window per word. Where the take landed in the recording is
// found by matching the two energy envelopes, so every window can be checked against its word.

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const WORDS = ['yes', 'no', 'up', 'down', 'left', 'right', 'go', 'three'];
const GAPS_MS = [800, 1300, 600, 1000, 700, 1500, 900];

/** Mean power per 5 ms of a mono int16 recording. */
function envelope(samples: Int16Array, rate: number): Float64Array {
  const n = Math.round(rate / 200);
  const out = new Float64Array(Math.floor(samples.length / n));
  for (let f = 0; f < out.length; f++) {
    let acc = 0;
    for (let i = f * n; i < (f + 1) * n; i++) acc += (samples[i]! / 32768) ** 2;
    out[f] = acc / n;
  }
  return out;
}

/** Where `needle` sits in `hay`, in 5 ms steps: the lag of the largest correlation. */
function bestLagMs(hay: Float64Array, needle: Float64Array): number {
  let best = -Infinity;
  let lag = 0;
  for (let k = 0; k + needle.length <= hay.length; k++) {
    let c = 0;
    for (let i = 0; i < needle.length; i++) c += hay[k + i]! * needle[i]!;
    if (c > best) {
      best = c;
      lag = k;
    }
  }
  return lag * 5;
}

describe('keywords recorded through the virtual microphone, split with --auto', () => {
  let server: { env: { PULSE_SERVER: string }; sink: string };
  beforeAll(() => {
    assertBuilt();
    server = testPulseFromEnv();
  });

  it('finds every spoken word in the recording, each whole in its window', async () => {
    const root = await mkdtemp(join(tmpdir(), 'cd-mic-words-'));
    const take = await spokenTake(root, WORDS, GAPS_MS, { leadMs: 500, tailMs: 500 });
    const priv: PrivateSink = await privateSink(server.env);
    cleanups.push(() => priv.unload());
    const data = join(root, 'data');
    const lengthMs = Math.ceil(take.lengthMs + 3500);

    // Start playing once the recorder says it records, so the whole take lands inside.
    const rec = spawn(process.execPath, [CLI, 'record', 'audio', '--rate', '16000', '--length-ms', String(lengthMs), '--label', 'keyword', '--data-dir', data], { env: { ...process.env, ...priv.env } });
    let stdout = '';
    let stderr = '';
    rec.stdout.on('data', (d) => (stdout += d));
    const playing = new Promise<void>((resolve, reject) => {
      rec.stderr.on('data', (d) => {
        stderr += d;
        if (!stderr.includes('Recording ')) return;
        const play = spawn('paplay', ['-d', priv.sink, take.file], { env: { ...process.env, ...priv.env }, stdio: 'ignore' });
        play.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`paplay exited with ${code}`))));
        rec.stderr.removeAllListeners('data');
        rec.stderr.on('data', (more) => (stderr += more));
      });
    });
    const code = await new Promise<number | null>((r) => rec.on('close', r));
    await playing;
    expect(code, stderr).toBe(0);
    const recorded = JSON.parse(stdout) as { id: string; file: string };

    const got = await readWav(recorded.file);
    const played = await readWav(take.file);
    const offsetMs = bestLagMs(envelope(got.samples, 16_000), envelope(played.samples, 16_000));
    expect(offsetMs).toBeGreaterThan(0);

    const r = await runCli(['samples', 'split', recorded.id, '--auto', '--data-dir', data]);
    expect(r.code, r.stderr).toBe(0);
    const windows = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { start_ms: number; end_ms: number; label: string });
    expect(windows).toHaveLength(WORDS.length);
    // 5 ms is the alignment's own resolution.
    windows.forEach((w, i) => {
      const word = take.words[i]!;
      expect(w.start_ms, `"${word.word}" starts inside its window`).toBeLessThanOrEqual(word.startMs + offsetMs + 5);
      expect(w.end_ms, `"${word.word}" ends inside its window`).toBeGreaterThanOrEqual(word.endMs + offsetMs - 5);
      expect(w.label).toBe('keyword');
    });
  }, 60_000);
});
