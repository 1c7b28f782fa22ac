import { describe, expect, it } from 'vitest';
import { decimateMinMax } from '../../src-renderer/lib/plot/decimate.js';
import { RingSeries } from '../../src-renderer/lib/plot/ring-series.js';

describe('RingSeries', () => {
  it('keeps the newest rows in order after wrapping', () => {
    const r = new RingSeries(2, 4);
    r.append(Float32Array.from([1, 10, 2, 20, 3, 30]));
    r.append(Float32Array.from([4, 40, 5, 50]));
    expect(r.length).toBe(4);
    expect(r.total).toBe(5);
    expect([0, 1, 2, 3].map((i) => r.get(0, i))).toEqual([2, 3, 4, 5]);
    expect([0, 1, 2, 3].map((i) => r.get(1, i))).toEqual([20, 30, 40, 50]);
  });

  it('takes a batch bigger than its capacity', () => {
    const r = new RingSeries(1, 3);
    r.append(Float32Array.from([1, 2, 3, 4, 5]));
    expect([0, 1, 2].map((i) => r.get(0, i))).toEqual([3, 4, 5]);
  });
});

describe('decimateMinMax', () => {
  it('keeps every spike while drawing at most two points per column', () => {
    const n = 100_000;
    const r = new RingSeries(1, n);
    const v = new Float32Array(n);
    v[12_345] = 50; // one-sample spike
    v[77_777] = -40;
    r.append(v);
    const { x, ys } = decimateMinMax(r, 500, 1000);
    expect(x.length).toBe(1000);
    expect(Math.max(...ys[0]!)).toBe(50);
    expect(Math.min(...ys[0]!)).toBe(-40);
    // x runs from the oldest row to the newest (0 s), increasing.
    expect(x[0]).toBeCloseTo(-(n - 1) / 1000);
    expect(x[x.length - 1]).toBe(0);
    for (let i = 1; i < x.length; i++) expect(x[i]!).toBeGreaterThanOrEqual(x[i - 1]!);
  });

  it('passes short series through untouched', () => {
    const r = new RingSeries(2, 10);
    r.append(Float32Array.from([1, 2, 3, 4]));
    const { x, ys } = decimateMinMax(r, 800, 2);
    expect(Array.from(x)).toEqual([-0.5, 0]);
    expect(Array.from(ys[1]!)).toEqual([2, 4]);
  });
});

describe('decimateMinMax on a wrapped ring', () => {
  it('gives each column the min and max of exactly its rows, in the order they happened', () => {
    const s = new RingSeries(2, 1000);
    let seed = 7;
    const rnd = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 2 - 1;
    const all: number[][] = [];
    for (let k = 0; k < 37; k++) { // 37 × 70 rows: wraps the 1000-row ring several times
      const batch = new Float32Array(70 * 2);
      for (let i = 0; i < batch.length; i++) batch[i] = rnd();
      s.append(batch);
      for (let r = 0; r < 70; r++) all.push([batch[r * 2]!, batch[r * 2 + 1]!]);
    }
    const held = all.slice(-1000);
    const { x, ys } = decimateMinMax(s, 100, 100);
    expect(x.length).toBe(200);
    for (let c = 0; c < 100; c++) {
      for (let a = 0; a < 2; a++) {
        const col = held.slice(c * 10, c * 10 + 10).map((r) => r[a]!);
        const min = Math.min(...col);
        const max = Math.max(...col);
        const minFirst = col.indexOf(min) <= col.indexOf(max);
        expect([ys[a]![2 * c], ys[a]![2 * c + 1]]).toEqual(minFirst ? [min, max] : [max, min]);
      }
    }
  });
});
