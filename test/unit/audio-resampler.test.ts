import { describe, expect, it } from 'vitest';
import { resample, StreamResampler } from '../../src-main/core/audio/resampler.js';
import { dominantFrequencies, toneSamples } from '../support/audio/signal.mjs';

function rms(x: Float32Array, from = 0, to = x.length): number {
  let s = 0;
  for (let i = from; i < to; i++) s += x[i]! * x[i]!;
  return Math.sqrt(s / (to - from));
}
const db = (a: number, b: number) => 20 * Math.log10(a / b);
/** Level of the output relative to the input, ignoring the filter's start and end. */
function gainDb(freq: number, inRate: number, outRate: number): number {
  const x = toneSamples([{ freq, amp: 0.5 }], inRate, inRate);
  const y = resample(x, inRate, outRate);
  return db(rms(y, 200, y.length - 200), rms(x));
}

describe('StreamResampler', () => {
  it('keeps a 1 kHz tone at 1 kHz and at its level when going from 48 kHz to 16 kHz', () => {
    const x = toneSamples([{ freq: 1000, amp: 0.5 }], 48_000, 48_000);
    const y = resample(x, 48_000, 16_000);
    expect(y.length).toBe(16_000);
    const [peak] = dominantFrequencies(y, 16_000, 1);
    expect(Math.abs(peak!.freq - 1000) / 1000).toBeLessThan(0.001);
    expect(Math.abs(db(rms(y, 200, y.length - 200), rms(x)))).toBeLessThan(0.05);
  });

  it('removes a 12 kHz tone (above the new Nyquist frequency) instead of folding it to 4 kHz', () => {
    // Linear interpolation or plain decimation would leave it at 4 kHz with nearly full level.
    expect(gainDb(12_000, 48_000, 16_000)).toBeLessThan(-40);
    expect(gainDb(12_000, 48_000, 16_000)).toBeLessThan(-80); // what the design actually gives
    expect(gainDb(8_500, 48_000, 16_000)).toBeLessThan(-60); // just above 8 kHz
    expect(gainDb(5_000, 48_000, 8_000)).toBeLessThan(-60);
  });

  it('has a flat pass band up to 80% of the output Nyquist frequency', () => {
    for (const f of [100, 1000, 3000, 5000, 6400]) expect(Math.abs(gainDb(f, 48_000, 16_000)), `${f} Hz`).toBeLessThan(0.1);
    expect(Math.abs(gainDb(3000, 44_100, 8_000))).toBeLessThan(0.1);
  });

  it('converts between rates with no common factor (44.1 kHz → 16 kHz) and up (16 kHz → 48 kHz)', () => {
    for (const [inRate, outRate, freq] of [[44_100, 16_000, 1000], [16_000, 48_000, 440], [48_000, 11_025, 2000], [48_000, 44_100, 15_000]] as const) {
      const y = resample(toneSamples([{ freq, amp: 0.5 }], inRate, inRate * 2), inRate, outRate);
      expect(y.length).toBe(Math.ceil(inRate * 2 * (outRate / inRate)));
      const [peak] = dominantFrequencies(y, outRate, 1);
      expect(Math.abs(peak!.freq - freq) / freq, `${inRate} → ${outRate}`).toBeLessThan(0.002);
    }
  });

  it('gives the same samples however the input is cut into chunks', () => {
    const x = toneSamples([{ freq: 997, amp: 0.4 }, { freq: 3100, amp: 0.3 }], 44_100, 44_100);
    const whole = resample(x, 44_100, 16_000);
    for (const sizes of [[1], [7, 1, 129], [1024], [5000, 3], [44_100]]) {
      const r = new StreamResampler(44_100, 16_000);
      const parts: Float32Array[] = [];
      let at = 0;
      for (let i = 0; at < x.length; i++) {
        const n = sizes[i % sizes.length]!;
        parts.push(r.process(x.subarray(at, at + n)));
        at += n;
      }
      parts.push(r.flush());
      const joined = Float32Array.from(parts.flatMap((p) => [...p]));
      expect(joined.length).toBe(whole.length);
      expect(joined).toEqual(whole);
    }
  });

  it('never drifts: after 20 minutes of 44.1 kHz input exactly n · ratio samples came out', () => {
    const r = new StreamResampler(44_100, 16_000, { zeroCrossings: 4 }); // short filter: this is about counting
    const chunk = new Float32Array(44_100);
    let out = 0;
    for (let s = 0; s < 1200; s++) out += r.process(chunk).length;
    out += r.flush().length;
    expect(out).toBe(16_000 * 1200);
    expect(r.counts).toEqual({ inputs: 44_100 * 1200, outputs: 16_000 * 1200 });
  });

  it('passes samples through unchanged when the rates match', () => {
    const x = toneSamples([{ freq: 1000, amp: 0.5 }], 16_000, 1000);
    const r = new StreamResampler(16_000, 16_000);
    expect(r.process(x)).toEqual(x);
    expect(r.flush().length).toBe(0);
  });

  it('refuses rates that are not positive whole numbers', () => {
    expect(() => new StreamResampler(0, 16_000)).toThrow(RangeError);
    expect(() => new StreamResampler(48_000, 16_000.5)).toThrow(RangeError);
  });
});
