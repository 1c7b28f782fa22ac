import { describe, expect, it } from 'vitest';
import { detectEvents } from '../../../src-main/core/review/segment/detect.js';
import { prng } from '../../support/seeded-random.mjs';

const gauss = (r: () => number) => Math.sqrt(-2 * Math.log(r() || 1e-12)) * Math.cos(2 * Math.PI * r());
const dbfs = (db: number) => 10 ** (db / 20);

const SR = 16_000;
/** Background noise and a steady 50 Hz hum louder than it, with tone bursts ("words") and one click. */
function audio(seconds: number, bursts: Array<[startS: number, lengthS: number, db?: number]>, clickAtS?: number) {
  const r = prng(7);
  const x = new Float64Array(seconds * SR);
  for (let i = 0; i < x.length; i++) x[i] = gauss(r) * dbfs(-50) + Math.sin((2 * Math.PI * 50 * i) / SR) * dbfs(-26);
  for (const [start, len, db = -20] of bursts) {
    const a = Math.round(start * SR);
    const n = Math.round(len * SR);
    // A vowel-ish sound: two partials under a raised-cosine envelope, so its edges are quiet like a word's.
    for (let i = 0; i < n; i++) x[a + i]! += dbfs(db) * Math.SQRT2 * (0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n)) * (Math.sin((2 * Math.PI * 440 * i) / SR) + 0.5 * Math.sin((2 * Math.PI * 1320 * i) / SR));
  }
  if (clickAtS !== undefined) for (let i = 0; i < 16; i++) x[Math.round(clickAtS * SR) + i] = i % 2 ? -0.95 : 0.95;
  const col = Int16Array.from(x, (v) => Math.max(-32768, Math.min(32767, Math.round(v * 32768))));
  return { kind: 'audio' as const, columns: [col], scale: 1 / 32768, intervalMs: 1000 / SR, rows: col.length };
}

/** 100 Hz accelerometer: gravity on z, noise on every axis, gesture bursts on the axis given. */
function accel(seconds: number, bursts: Array<[startS: number, lengthS: number, axis: 0 | 1 | 2]>, glitchAtS?: number) {
  const r = prng(11);
  const rows = seconds * 100;
  const cols = [0, 1, 2].map((a) => Float64Array.from({ length: rows }, () => gauss(r) * 0.08 + (a === 2 ? 9.81 : 0)));
  for (const [start, len, axis] of bursts) {
    const a = Math.round(start * 100);
    const n = Math.round(len * 100);
    for (let i = 0; i < n; i++) cols[axis]![a + i]! += 3 * Math.sin((2 * Math.PI * 3 * i) / 100) * Math.sin((Math.PI * i) / n);
  }
  if (glitchAtS !== undefined) cols[0]![glitchAtS * 100] = 40;
  return { kind: 'sensor' as const, columns: cols, scale: 1, intervalMs: 10, rows };
}

const holds = (w: { from: number; to: number }, startRow: number, endRow: number) => w.from <= startRow && w.to >= endRow;

describe('event detection in audio', () => {
  const words: Array<[number, number, number?]> = [[1.2, 0.4], [2.9, 0.35, -30], [3.8, 0.5], [6.1, 0.3], [8.0, 0.45, -28]];

  it('finds every word over hum and noise, one window of the given length each, holding the word', () => {
    const d = audio(10, words, 5.2);
    const det = detectEvents(d, { windowMs: 1000 });
    expect(det.windows).toHaveLength(words.length);
    det.windows.forEach((w, i) => {
      const [s, len] = words[i]!;
      expect(w.to - w.from).toBe(SR);
      expect(holds(w, s * SR, (s + len) * SR)).toBe(true);
      // Centred on the word (a symmetric envelope: its middle), within 30 ms.
      expect(Math.abs((w.from + w.to) / 2 / SR - (s + len / 2))).toBeLessThan(0.03);
    });
    // The floor is the hum (high-passed) and the noise, far below the words.
    expect(10 * Math.log10(det.floorPower)).toBeLessThan(-40);
  });

  it('ignores a steady hum and a single loud click when nothing else happens', () => {
    expect(detectEvents(audio(10, [], 5.2)).windows).toEqual([]);
  });

  it('is not fooled by seconds of digital silence before and after the room (a microphone starting late)', () => {
    const d = audio(16, [[4.5, 0.4], [6, 0.4], [9.5, 0.3], [12, 0.4]]);
    d.columns[0]!.fill(0, 0, 3.5 * SR);
    d.columns[0]!.fill(0, 13 * SR);
    const det = detectEvents(d);
    expect(det.windows.map((w) => Math.round(w.event.from / SR * 10) / 10)).toEqual([4.5, 6, 9.5, 12]);
  });

  it('drops quiet words as the threshold rises, keeps them as it falls', () => {
    const d = audio(10, words);
    expect(detectEvents(d, { threshold: 4 }).windows).toHaveLength(5);
    // The −30 and −28 dBFS words peak ≈ 17–19 dB over this floor, the −20 dBFS ones ≈ 27 dB.
    expect(detectEvents(d, { threshold: 10 ** (22 / 20) }).windows).toHaveLength(3);
  });

  it('merges events closer than the minimum gap', () => {
    const d = audio(6, [[1, 0.3], [1.45, 0.3], [4, 0.3]]);
    expect(detectEvents(d, { minGapMs: 250 }).windows).toHaveLength(2);
    expect(detectEvents(d, { minGapMs: 50 }).windows).toHaveLength(3);
  });

  it('drops windows that would run past an end, or shifts them inside without padding', () => {
    const d = audio(5, [[0.1, 0.3], [2, 0.3], [4.75, 0.2]]);
    const dropped = detectEvents(d, { windowMs: 1000 });
    expect(dropped.windows).toHaveLength(1);
    expect(dropped.droppedAtEdges).toBe(2);
    const kept = detectEvents(d, { windowMs: 1000, keepEdges: true });
    expect(kept.windows.map((w) => [w.from, w.to, w.shifted])).toEqual([[0, SR, true], [expect.any(Number), expect.any(Number), false], [4 * SR, 5 * SR, true]]);
  });

  it('refuses a window longer than the sample and a threshold of 1 or less', () => {
    const d = audio(2, [[1, 0.3]]);
    expect(() => detectEvents(d, { windowMs: 3000 })).toThrow(/2000 ms long, shorter than one window of 3000 ms/);
    expect(() => detectEvents(d, { threshold: 1 })).toThrow(/must be above 1/);
  });
});

describe('event detection in sensor data', () => {
  const gestures: Array<[number, number, 0 | 1 | 2]> = [[3, 0.8, 0], [9, 0.6, 1], [15.5, 1, 2], [22, 0.7, 0]];

  it('finds a gesture on any axis, ignoring gravity, noise and a one-reading glitch', () => {
    const det = detectEvents(accel(30, gestures, 12), { windowMs: 2000 });
    expect(det.windows).toHaveLength(gestures.length);
    det.windows.forEach((w, i) => {
      const [s, len] = gestures[i]!;
      expect(w.to - w.from).toBe(200);
      expect(holds(w, s * 100, (s + len) * 100)).toBe(true);
    });
  });

  it('finds nothing in a still board lying flat', () => {
    expect(detectEvents(accel(30, [])).windows).toEqual([]);
  });
});
