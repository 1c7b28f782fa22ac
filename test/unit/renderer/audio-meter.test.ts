import { describe, expect, it } from 'vitest';
import { formatDbfs, levelWarning, meterFraction, WaveformHistory, waveformSpans } from '../../../src-renderer/lib/audio/meter.js';

describe('level meter', () => {
  it('maps dBFS linearly onto the meter, clamped to the floor and full scale', () => {
    expect(meterFraction(0)).toBe(1);
    expect(meterFraction(-30)).toBeCloseTo(0.5);
    expect(meterFraction(-60)).toBe(0);
    expect(meterFraction(-120)).toBe(0);
    expect(meterFraction(3)).toBe(1);
    expect(meterFraction(Number.NaN)).toBe(0);
    expect(meterFraction(-20, -40)).toBeCloseTo(0.5);
  });

  it('formats levels, digital silence as −∞', () => {
    expect(formatDbfs(-9.03)).toBe('−9.0 dBFS');
    expect(formatDbfs(-120)).toBe('−∞ dBFS');
  });

  it('warns about clipping before silence', () => {
    expect(levelWarning({ clipping: true, silent: false })).toBe('clipping');
    expect(levelWarning({ clipping: false, silent: true })).toBe('silent');
    expect(levelWarning({ clipping: true, silent: true })).toBe('clipping');
    expect(levelWarning({ clipping: false, silent: false })).toBeNull();
  });
});

describe('scrolling waveform', () => {
  it('keeps the last `capacity` [min, max] columns, oldest first, in fixed memory', () => {
    const h = new WaveformHistory(3);
    h.push([-0.1, 0.1, -0.2, 0.2]);
    expect(h.length).toBe(2);
    h.push([-0.3, 0.3, -0.4, 0.4]);
    expect(h.length).toBe(3);
    expect(h.total).toBe(4);
    expect([h.at(0), h.at(1), h.at(2)].map(([a, b]) => [a, b].map((v) => Number(v.toFixed(3))))).toEqual([[-0.2, 0.2], [-0.3, 0.3], [-0.4, 0.4]]);
    expect(() => new WaveformHistory(0)).toThrow(RangeError);
  });

  it('draws the newest audio at the right edge, one span per pixel from the min/max of its columns', () => {
    const h = new WaveformHistory(8);
    // 8 columns on 4 pixels: each pixel takes two columns.
    h.push([-0.5, 0.5, -0.25, 0.25, 0, 0, 0, 0, -1, 1, -0.5, 0.5, -0.1, 0.1, -0.2, 0.2]);
    const spans = Array.from(waveformSpans(h, 4, 100));
    // [x, yTop, yBottom]; y = 50 − v·50.
    expect(spans.slice(0, 3)).toEqual([3, 40, 60]); // newest two: ±0.1, ±0.2
    expect(spans.slice(3, 6)).toEqual([2, 0, 100]); // ±1 (full scale), ±0.5
    expect(spans.slice(6, 9)).toEqual([1, 50, 50]); // silence: a flat line at the middle
    expect(spans.slice(9, 12)).toEqual([0, 25, 75]); // oldest: ±0.5, ±0.25
  });

  it('a history not yet full fills from the right; values beyond full scale stay on the canvas', () => {
    const h = new WaveformHistory(100);
    h.push([-2, 2]);
    const spans = Array.from(waveformSpans(h, 50, 10));
    expect(spans).toEqual([49, 0, 10]);
  });
});
