import { describe, expect, it } from 'vitest';
import { envelope } from '../../../src-main/core/review/envelope.js';
import { fft, spectrogram } from '../../../src-main/core/review/spectrogram.js';
import { clipLabels, cropWindow, eventWindows, fixedWindows, msToRow } from '../../../src-main/core/review/windows.js';

describe('envelope', () => {
  const ramp = Float64Array.from({ length: 1000 }, (_, i) => i);
  const spiky = Float64Array.from({ length: 1000 }, (_, i) => (i === 537 ? 99 : 0));

  it('sends the rows themselves when the window is narrow enough', () => {
    const e = envelope({ columns: [ramp], scale: 1, intervalMs: 10 }, 100, 110, 20);
    expect(e.raw).toBe(true);
    expect([...e.t]).toEqual([1000, 1010, 1020, 1030, 1040, 1050, 1060, 1070, 1080, 1090]);
    expect([...e.min[0]!]).toEqual([100, 101, 102, 103, 104, 105, 106, 107, 108, 109]);
    expect(e.max[0]).toBe(e.min[0]);
  });

  it('covers every row exactly once with min/max columns, and keeps a one-row spike', () => {
    const e = envelope({ columns: [ramp, spiky], scale: 1, intervalMs: 10 }, 0, 1000, 7);
    expect(e.raw).toBe(false);
    expect(e.t.length).toBe(7);
    expect(e.min[0]![0]).toBe(0);
    expect(e.max[0]![6]).toBe(999);
    // Column c holds rows floor(c·n/w) .. floor((c+1)·n/w) − 1: each column's min is the last column's max + 1.
    for (let c = 1; c < 7; c++) expect(e.min[0]![c]).toBe(e.max[0]![c - 1]! + 1);
    expect(Math.max(...e.max[1]!)).toBe(99);
    expect(e.t[3]).toBe(Math.floor((3 * 1000) / 7) * 10);
  });

  it('scales stored values (int16 audio → ±1)', () => {
    const e = envelope({ columns: [Int16Array.from([-32768, 16384])], scale: 1 / 32768, intervalMs: 1 }, 0, 2, 10);
    expect([...e.min[0]!]).toEqual([-1, 0.5]);
  });
});

describe('crop and split windows', () => {
  it('turns milliseconds into rows, clamped to the sample', () => {
    expect(msToRow(25, 10, 100)).toBe(3); // rounds to the nearest row boundary
    expect(msToRow(-5, 10, 100)).toBe(0);
    expect(msToRow(5000, 10, 100)).toBe(100);
  });

  it('crops a selection in either direction, and refuses an empty or whole one', () => {
    expect(cropWindow(100, 10, 200, 500)).toEqual({ from: 20, to: 50 });
    expect(cropWindow(100, 10, 500, 200)).toEqual({ from: 20, to: 50 });
    expect(() => cropWindow(100, 10, 200, 201)).toThrow(/no rows/);
    expect(() => cropWindow(100, 10, 0, 1000)).toThrow(/whole sample/);
  });

  it('cuts fixed windows back to back or with a stride, dropping a partial last one', () => {
    expect(fixedWindows(100, 10, 300)).toEqual([{ from: 0, to: 30 }, { from: 30, to: 60 }, { from: 60, to: 90 }]);
    expect(fixedWindows(100, 10, 500, 250)).toEqual([{ from: 0, to: 50 }, { from: 25, to: 75 }, { from: 50, to: 100 }]);
    expect(() => fixedWindows(100, 10, 2000)).toThrow(/shorter than one window/);
    expect(() => fixedWindows(100, 10, 1)).toThrow(/shorter than one row/);
    expect(() => fixedWindows(10_000_000, 1, 1)).toThrow(/at most/);
  });

  it('puts a padded window around each marked event, inside the sample', () => {
    const labels = [{ startIndex: 2, endIndex: 5, label: 'tap' }, { startIndex: 90, endIndex: 99, label: 'swipe' }];
    expect(eventWindows(100, 10, labels, 50)).toEqual([{ from: 0, to: 11, label: 'tap' }, { from: 85, to: 100, label: 'swipe' }]);
    expect(() => eventWindows(100, 10, null, 0)).toThrow(/no marked events/);
  });

  it('shifts structured labels to the window and clips them (endIndex inclusive)', () => {
    const labels = [{ startIndex: 0, endIndex: 9, label: 'a' }, { startIndex: 10, endIndex: 29, label: 'b' }, { startIndex: 40, endIndex: 45, label: 'c' }];
    expect(clipLabels(labels, { from: 5, to: 20 })).toEqual([{ startIndex: 0, endIndex: 4, label: 'a' }, { startIndex: 5, endIndex: 14, label: 'b' }]);
    expect(clipLabels(labels, { from: 30, to: 40 })).toBeNull();
    expect(clipLabels(null, { from: 0, to: 10 })).toBeNull();
  });
});

describe('spectrogram', () => {
  it('fft of a cosine puts its energy in its bin', () => {
    const n = 64;
    const re = Float64Array.from({ length: n }, (_, i) => Math.cos((2 * Math.PI * 5 * i) / n));
    const im = new Float64Array(n);
    fft(re, im);
    expect(re[5]).toBeCloseTo(n / 2, 6);
    expect(Math.abs(re[6]!)).toBeLessThan(1e-9);
  });

  it('shows a 1 kHz tone at 1 kHz, near full scale', () => {
    const rate = 16000;
    const tone = Int16Array.from({ length: rate }, (_, i) => Math.round(32767 * Math.sin((2 * Math.PI * 1000 * i) / rate)));
    const s = spectrogram(tone, 1 / 32768, rate, 0, rate, 50, 512);
    expect(s.frames).toBe(50);
    expect(s.bins).toBe(256);
    const frame = s.data.subarray(20 * s.bins, 21 * s.bins);
    const peak = frame.indexOf(Math.max(...frame));
    expect(peak * (s.maxHz / s.bins)).toBeCloseTo(1000, -2);
    expect(frame[peak]).toBeGreaterThan(240);
    expect(frame[200]).toBeLessThan(100);
  });
});
