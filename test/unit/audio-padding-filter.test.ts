import { describe, expect, it } from 'vitest';
import { PaddingFilter, RENDER_QUANTUM } from '../../src-main/core/audio/padding-filter.js';
import { toneSamples } from '../support/audio/signal.mjs';

const RATE = 48_000;
const tone = (frames: number, start = 1) => toneSamples([{ freq: 997, amp: 0.5 }], RATE, frames, start); // from 1: sin(0) = 0 would read as warm-up

/** A tone with `runs` blocks of made-up silence inserted (what the engine does when the device is late). */
function withPadding(signal: Float32Array, at: number[], quanta = 1): Float32Array {
  const parts: number[] = [];
  let prev = 0;
  for (const a of at) {
    parts.push(...signal.subarray(prev, a), ...new Array<number>(RENDER_QUANTUM * quanta).fill(0));
    prev = a;
  }
  parts.push(...signal.subarray(prev));
  return Float32Array.from(parts);
}

function run(f: PaddingFilter, input: Float32Array, chunk: number): Float32Array {
  const out: number[] = [];
  for (let i = 0; i < input.length; i += chunk) out.push(...f.process(input.subarray(i, i + chunk)));
  out.push(...f.flush());
  return Float32Array.from(out);
}

describe('PaddingFilter', () => {
  it('removes the 128-frame blocks of silence the engine inserts, restoring the original signal', () => {
    const signal = tone(RATE);
    const padded = withPadding(signal, [1000, 5003, 20_000, 33_333], 1);
    for (const chunk of [1024, 1, 100, 4096, 128]) {
      const f = new PaddingFilter();
      expect(run(f, padded, chunk), `chunks of ${chunk}`).toEqual(signal);
      expect(f.removedRuns).toBe(4);
      expect(f.removedFrames).toBe(4 * RENDER_QUANTUM);
    }
  });

  it('removes longer stalls made of several quanta', () => {
    const signal = tone(RATE);
    const f = new PaddingFilter();
    expect(run(f, withPadding(signal, [2000, 9000], 36), 1024)).toEqual(signal);
    expect(f.removedFrames).toBe(72 * RENDER_QUANTUM);
  });

  it('keeps zeros that are part of the audio: single zero samples and real silence', () => {
    // A 1 kHz tone at 48 kHz hits exactly 0 every 24 samples.
    const exactZeros = Float32Array.from({ length: 4800 }, (_, i) => (i % 24 === 0 ? 0 : Math.sin((2 * Math.PI * i) / 48)));
    expect(run(new PaddingFilter(), exactZeros, 1024)).toEqual(exactZeros.subarray(1)); // leading zero = warm-up
    // A muted stretch longer than maxRun passes whole, as does a short odd-length one.
    const muted = Float32Array.from([...tone(1000), ...new Array<number>(5000).fill(0), ...tone(1000, 1001), ...new Array<number>(200).fill(0), ...tone(500, 2001)]);
    const f = new PaddingFilter({ maxRunFrames: 4800 });
    expect(run(f, muted, 333)).toEqual(muted);
    expect(f.removedFrames).toBe(0);
  });

  it('drops the warm-up silence before the first real sample and reports when audio is live', () => {
    const f = new PaddingFilter({ warmupFrames: 10 * RATE });
    expect(f.process(new Float32Array(RATE)).length).toBe(0);
    expect(f.live).toBe(false);
    const out = f.process(Float32Array.from([0, 0, 0.5, 0.25]));
    expect([...out]).toEqual([0.5, 0.25]);
    expect(f.live).toBe(true);
  });

  it('lets a silent input through once the warm-up limit passed', () => {
    const f = new PaddingFilter({ warmupFrames: 1000 });
    expect(f.process(new Float32Array(999)).length).toBe(0);
    expect(f.process(new Float32Array(500)).length).toBe(499);
    expect(f.live).toBe(true);
    expect(f.trailingZeros).toBe(499);
  });

  it('shows a stalled device as a growing run of trailing zeros', () => {
    const f = new PaddingFilter();
    f.process(tone(1000));
    f.process(new Float32Array(RENDER_QUANTUM * 100));
    expect(f.trailingZeros).toBe(RENDER_QUANTUM * 100);
    expect(f.flush().length).toBe(0); // padding-shaped at the end: dropped
  });
});
