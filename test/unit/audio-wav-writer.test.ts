import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { floatToInt16 } from '../../src-main/core/audio/pcm.js';
import { WavFileWriter } from '../../src-main/core/samples/formats/wav-writer.js';
import { dominantFrequencies, readWav, toneSamples } from '../support/audio/signal.mjs';

// The recorder's files must be read by other tools exactly as we meant them: sox is the judge.
const run = promisify(execFile);
async function soxInfo(path: string): Promise<{ rate: number; channels: number; samples: number; bits: number; encoding: string; seconds: number }> {
  const q = async (flag: string) => (await run('sox', ['--i', flag, path])).stdout.trim();
  return {
    rate: Number(await q('-r')),
    channels: Number(await q('-c')),
    samples: Number(await q('-s')),
    bits: Number(await q('-b')),
    encoding: await q('-e'),
    seconds: Number(await q('-D')),
  };
}

let dir: string;
beforeAll(async () => {
  await run('sox', ['--version']).catch(() => {
    throw new Error('sox is needed for this test (apt install sox; npm test checks for it).');
  });
  dir = await mkdtemp(join(tmpdir(), 'audio-wav-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('WavFileWriter, read back by sox', () => {
  it.each([8000, 16_000, 44_100, 48_000])('writes mono 16-bit PCM at %i Hz that sox reads with the right rate, length and content', async (rate) => {
    const path = join(dir, `tone-${rate}.wav`);
    const w = await WavFileWriter.create(path, { sampleRate: rate, channels: 1 });
    const frames = Math.round(rate * 1.5);
    const { pcm } = floatToInt16(toneSamples([{ freq: 1000, amp: 0.5 }], rate, frames));
    for (let i = 0; i < frames; i += 777) await w.append(pcm.subarray(i, i + 777)); // odd chunk sizes
    const info = await w.finish();
    expect(info.frames).toBe(frames);
    const sox = await soxInfo(path);
    expect(sox).toEqual({ rate, channels: 1, samples: frames, bits: 16, encoding: 'Signed Integer PCM', seconds: 1.5 });
    expect((await stat(path)).size).toBe(44 + 2 * frames);
    const back = await readWav(path);
    expect(back.samples).toEqual(pcm);
    expect(Math.abs(dominantFrequencies(back.samples, rate)[0]!.freq - 1000)).toBeLessThan(2);
  });

  it('leaves a file sox reads in full after every append, before finish (crash or unplug mid-recording)', async () => {
    const path = join(dir, 'partial.wav');
    const w = await WavFileWriter.create(path, { sampleRate: 16_000 });
    const { pcm } = floatToInt16(toneSamples([{ freq: 440, amp: 0.3 }], 16_000, 16_000));
    await w.append(pcm.subarray(0, 8000));
    expect((await soxInfo(path)).samples).toBe(8000);
    await w.append(pcm.subarray(8000, 12_000));
    expect((await soxInfo(path)).samples).toBe(12_000);
    await w.abort(); // the error path: still a valid file
    expect((await soxInfo(path)).seconds).toBe(0.75);
  });

  it('writes an empty but valid file when nothing was appended', async () => {
    const path = join(dir, 'empty.wav');
    const w = await WavFileWriter.create(path, { sampleRate: 16_000 });
    await w.finish();
    expect((await soxInfo(path)).samples).toBe(0);
  });

  it('round-trips full-scale and clipped samples (sox agrees on the extremes)', async () => {
    const path = join(dir, 'extremes.wav');
    const w = await WavFileWriter.create(path, { sampleRate: 16_000 });
    const { pcm, clipped } = floatToInt16(Float32Array.from([0, 1, -1, 1.5, -1.5, 0.5, -0.5]));
    expect([...pcm]).toEqual([0, 32767, -32767, 32767, -32767, 16384, -16384]); // symmetric
    expect(clipped).toBe(4);
    await w.append(pcm);
    await w.finish();
    const stats = (await run('sox', [path, '-n', 'stat'])).stderr;
    expect(stats).toMatch(/Maximum amplitude:\s+0\.99996/);
    expect(stats).toMatch(/Minimum amplitude:\s+-0\.99996/);
  });
});
