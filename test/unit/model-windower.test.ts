import { describe, expect, it } from 'vitest';
import { type CutWindow, Windower, type WindowerOptions } from '../../src-main/core/model/windower.js';

/** rows × axes interleaved values; value of (row r, axis c) = r * 10 + c, exact in float32 for r < 10^6. */
function ramp(rows: number, axes: number, from = 0): Float64Array {
  const v = new Float64Array(rows * axes);
  for (let r = 0; r < rows; r++) for (let c = 0; c < axes; c++) v[r * axes + c] = (from + r) * 10 + c;
  return v;
}

/** Pushes `values` in chunks of `chunk` rows (as plain arrays when asked) and collects the windows. */
function feed(w: Windower, values: Float64Array, axes: number, chunk: number, plain = false): CutWindow[] {
  const out: CutWindow[] = [];
  const rows = values.length / axes;
  for (let r = 0; r < rows; r += chunk) {
    const n = Math.min(chunk, rows - r);
    const part = values.subarray(r * axes, (r + n) * axes);
    out.push(...w.push(plain ? Array.from(part) : part, n));
  }
  return out;
}

const same: WindowerOptions = { axes: 3, windowRows: 10, strideRows: 4, sourceHz: 100, modelHz: 100 };

describe('Windower at the same rate', () => {
  it('emits the first window after exactly windowRows rows, then one every strideRows', () => {
    const w = new Windower(same);
    expect(w.resampling).toBe(false);
    expect(w.push(ramp(9, 3), 9)).toEqual([]);
    const first = w.push(ramp(1, 3, 9), 1);
    expect(first.map((x) => [x.index, x.endRow, x.endMs])).toEqual([[0, 10, 100]]);
    expect(Array.from(first[0]!.values)).toEqual(Array.from(ramp(10, 3)));
    expect(w.push(ramp(3, 3, 10), 3)).toEqual([]);
    const second = w.push(ramp(1, 3, 13), 1);
    expect(second.map((x) => [x.index, x.endRow, x.endMs])).toEqual([[1, 14, 140]]);
    expect(Array.from(second[0]!.values)).toEqual(Array.from(ramp(10, 3, 4)));
  });

  it('gives the same windows whatever the chunk boundaries, for typed and plain arrays', () => {
    const data = ramp(2000, 3);
    const reference = feed(new Windower(same), data, 3, 2000);
    expect(reference).toHaveLength(Math.floor((2000 - 10) / 4) + 1);
    reference.forEach((x, i) => {
      expect(x.index).toBe(i);
      expect(x.endRow).toBe(10 + 4 * i);
      expect(Array.from(x.values)).toEqual(Array.from(ramp(10, 3, 4 * i)));
    });
    for (const chunk of [1, 7, 1000]) {
      expect(feed(new Windower(same), data, 3, chunk)).toEqual(reference);
      expect(feed(new Windower(same), data, 3, chunk, true)).toEqual(reference);
    }
  });

  it('hands out a new array per window', () => {
    const wins = feed(new Windower(same), ramp(30, 3), 3, 30);
    expect(wins[0]!.values).not.toBe(wins[1]!.values);
    expect(wins[0]!.values.buffer).not.toBe(wins[1]!.values.buffer);
    wins[0]!.values.fill(-1);
    expect(wins[1]!.values[0]).toBe(40);
  });

  it('skips the rows between windows when the stride is longer than the window', () => {
    const wins = feed(new Windower({ ...same, windowRows: 3, strideRows: 5 }), ramp(40, 3), 3, 7);
    expect(wins.map((x) => x.endRow)).toEqual([3, 8, 13, 18, 23, 28, 33, 38]);
    expect(Array.from(wins[2]!.values)).toEqual(Array.from(ramp(3, 3, 10)));
  });

  it('keeps a fractional stride exact on average: 500 ms at 62.5 Hz ends windows at 125, 156, 188, 219, 250 rows', () => {
    const o: WindowerOptions = { axes: 3, windowRows: 125, strideRows: 31.25, sourceHz: 62.5, modelHz: 62.5 };
    const data = ramp(2000, 3);
    const wins = feed(new Windower(o), data, 3, 7);
    expect(wins.slice(0, 5).map((x) => x.endRow)).toEqual([125, 156, 188, 219, 250]);
    wins.forEach((x, k) => {
      expect(x.endRow).toBe(125 + Math.round(k * 31.25));
      expect(Array.from(x.values)).toEqual(Array.from(ramp(125, 3, x.endRow - 125)));
    });
    expect(wins.at(-1)!.endMs - wins[0]!.endMs).toBeCloseTo((wins.length - 1) * 500, 6);
    expect(() => new Windower({ ...o, strideRows: 0.5 })).toThrow(RangeError);
  });

  it('treats rates within 1% as equal and keeps time on the stream axis', () => {
    const w = new Windower({ axes: 1, windowRows: 100, strideRows: 50, sourceHz: 99.5, modelHz: 100 });
    expect(w.resampling).toBe(false);
    const wins = feed(w, ramp(200, 1), 1, 33);
    expect(wins.map((x) => x.endRow)).toEqual([100, 150, 200]);
    expect(wins[0]!.endMs).toBeCloseTo((100 / 99.5) * 1000, 9);
    expect(new Windower({ axes: 1, windowRows: 10, strideRows: 1, sourceHz: 101, modelHz: 100 }).resampling).toBe(false);
    expect(new Windower({ axes: 1, windowRows: 10, strideRows: 1, sourceHz: 101.5, modelHz: 100 }).resampling).toBe(true);
  });

  it('starts over on reset', () => {
    const w = new Windower(same);
    w.push(ramp(13, 3), 13);
    w.reset();
    expect(w.bufferedRows).toBe(0);
    const wins = w.push(ramp(10, 3, 500), 10);
    expect(wins.map((x) => [x.index, x.endRow])).toEqual([[0, 10]]);
    expect(wins[0]!.values[0]).toBe(5000);
  });

  it('rejects bad options and short input', () => {
    expect(() => new Windower({ ...same, strideRows: 0 })).toThrow(RangeError);
    expect(() => new Windower({ ...same, windowRows: 1.5 })).toThrow(RangeError);
    expect(() => new Windower({ ...same, modelHz: 0 })).toThrow(RangeError);
    expect(() => new Windower(same).push([1, 2, 3], 2)).toThrow(/need 6 values/);
  });
});

describe('Windower resampling', () => {
  it('turns a 100 Hz linear ramp into exact 62.5 Hz values', () => {
    const o: WindowerOptions = { axes: 2, windowRows: 125, strideRows: 25, sourceHz: 100, modelHz: 62.5 };
    const data = new Float64Array(1000 * 2);
    // value = 3 * time-in-source-rows + axis offset: linear, so interpolation must hit it exactly.
    for (let i = 0; i < 1000; i++) {
      data[i * 2] = 3 * i;
      data[i * 2 + 1] = -0.5 * i + 7;
    }
    const reference = feed(new Windower(o), data, 2, 1000);
    expect(new Windower(o).resampling).toBe(true);
    // Model row k lies at source row 1.6 k; the last usable is k = 624 (998.4), so windows end at 125, 150, … 625.
    expect(reference.map((x) => x.index)).toEqual(Array.from({ length: 21 }, (_, i) => i));
    reference.forEach((x, i) => {
      const end = 125 + 25 * i; // model rows
      expect(x.endMs).toBeCloseTo((end / 62.5) * 1000, 9);
      // Completed by the first source row at or past the window's last model row's time.
      expect(x.endRow).toBe(Math.ceil(((end - 1) * 100) / 62.5) + 1);
      for (let r = 0; r < 125; r++) {
        const t = ((end - 125 + r) * 100) / 62.5;
        expect(x.values[r * 2]).toBeCloseTo(3 * t, 2);
        expect(x.values[r * 2 + 1]).toBeCloseTo(-0.5 * t + 7, 3);
      }
    });
    for (const chunk of [1, 7, 333]) expect(feed(new Windower(o), data, 2, chunk)).toEqual(reference);
  });

  it('takes a 48 kHz sine down to 16 kHz', () => {
    const f = 440;
    const n = 48_000;
    const data = new Float64Array(n);
    for (let i = 0; i < n; i++) data[i] = 10_000 * Math.sin((2 * Math.PI * f * i) / 48_000);
    const o: WindowerOptions = { axes: 1, windowRows: 8000, strideRows: 4000, sourceHz: 48_000, modelHz: 16_000 };
    const wins = feed(new Windower(o), data, 1, 4096);
    expect(wins.map((x) => x.endMs)).toEqual([500, 750, 1000]);
    wins.forEach((x, i) => {
      let worst = 0;
      for (let k = 0; k < 8000; k++) {
        const want = 10_000 * Math.sin((2 * Math.PI * f * (4000 * i + k)) / 16_000);
        worst = Math.max(worst, Math.abs(x.values[k]! - want));
      }
      expect(worst).toBeLessThan(0.01); // 16 kHz samples fall on 48 kHz ones: only float32 rounding
    });
  });

  it('interpolates a 44.1 kHz sine onto 16 kHz within linear interpolation error', () => {
    const f = 440;
    const data = new Float64Array(44_100);
    for (let i = 0; i < data.length; i++) data[i] = Math.sin((2 * Math.PI * f * i) / 44_100);
    const wins = feed(new Windower({ axes: 1, windowRows: 16_000, strideRows: 4000, sourceHz: 44_100, modelHz: 16_000 }), data, 1, 1000);
    expect(wins).toHaveLength(1);
    const bound = (2 * Math.PI * f / 44_100) ** 2 / 8 + 1e-6; // max |error| of linear interpolation of a unit sine
    for (let k = 0; k < 16_000; k++) {
      expect(Math.abs(wins[0]!.values[k]! - Math.sin((2 * Math.PI * f * k) / 16_000))).toBeLessThan(bound);
    }
  });

  it('upsamples 50 Hz to 100 Hz with midpoints', () => {
    const wins = feed(new Windower({ axes: 1, windowRows: 5, strideRows: 5, sourceHz: 50, modelHz: 100 }), Float64Array.from([0, 2, 4, 6, 8]), 1, 1);
    expect(wins.map((x) => [Array.from(x.values), x.endRow, x.endMs])).toEqual([[[0, 1, 2, 3, 4], 3, 50]]);
  });
});

describe('Windower memory', () => {
  it('stays bounded over 10^6 rows, same rate and resampled', () => {
    for (const o of [
      { axes: 3, windowRows: 200, strideRows: 50, sourceHz: 100, modelHz: 100 },
      { axes: 3, windowRows: 200, strideRows: 50, sourceHz: 100_000, modelHz: 62.5 },
      { axes: 3, windowRows: 200, strideRows: 500, sourceHz: 1000, modelHz: 333 },
    ]) {
      const w = new Windower(o);
      const chunk = ramp(997, 3);
      let windows = 0;
      let maxBuffered = 0;
      for (let rows = 0; rows < 1_000_000; rows += 997) {
        windows += w.push(chunk, 997).length;
        maxBuffered = Math.max(maxBuffered, w.bufferedRows);
      }
      expect(windows).toBeGreaterThan(0);
      expect(maxBuffered).toBeLessThanOrEqual(o.windowRows + o.strideRows);
    }
  });

  it('keeps up with 16 kHz audio and fast 3-axis serial', () => {
    const audio = new Windower({ axes: 1, windowRows: 16_000, strideRows: 4000, sourceHz: 16_000, modelHz: 16_000 });
    const second = new Float64Array(16_000);
    const serial = new Windower({ axes: 3, windowRows: 125, strideRows: 25, sourceHz: 100_000, modelHz: 62.5 });
    const rows = ramp(100_000, 3);
    const t0 = performance.now();
    for (let s = 0; s < 60; s++) audio.push(second, 16_000); // a minute of audio
    for (let s = 0; s < 5; s++) serial.push(rows, 100_000); // 5 s of 100k rows/s
    expect(performance.now() - t0).toBeLessThan(2000); // generous: typically tens of ms
  });
});
