import { describe, expect, it } from 'vitest';
import { clampView, envelopeToPlot, panView, zoomView } from '../../../src-renderer/lib/review/plot-data.js';

describe('sample view: zoom, pan and plot data', () => {
  it('zooms around a point that stays put on screen, within the sample and not below a few rows', () => {
    const v = { startMs: 0, endMs: 10_000 };
    expect(zoomView(v, 0.5, 5000, 10_000, 80)).toEqual({ startMs: 2500, endMs: 7500 });
    expect(zoomView(v, 0.5, 2000, 10_000, 80)).toEqual({ startMs: 1000, endMs: 6000 }); // 2 s stays at 20 % of the width
    expect(zoomView({ startMs: 100, endMs: 200 }, 0.1, 150, 10_000, 80)).toEqual({ startMs: 110, endMs: 190 });
    expect(zoomView({ startMs: 2500, endMs: 7500 }, 4, 5000, 10_000, 80)).toEqual({ startMs: 0, endMs: 10_000 });
  });

  it('pans by a fraction of the view and stops at the ends', () => {
    expect(panView({ startMs: 2500, endMs: 7500 }, 0.1, 10_000, 80)).toEqual({ startMs: 3000, endMs: 8000 });
    expect(panView({ startMs: 8000, endMs: 9000 }, 0.5, 10_000, 80)).toEqual({ startMs: 8500, endMs: 9500 });
    expect(panView({ startMs: 8000, endMs: 9000 }, 5, 10_000, 80)).toEqual({ startMs: 9000, endMs: 10_000 });
    expect(clampView({ startMs: -50, endMs: 100 }, 10_000, 80)).toEqual({ startMs: 0, endMs: 150 });
  });

  it('turns min/max columns into two points each, and raw rows into one', () => {
    const env = { t: Float64Array.from([0, 100]), min: [Float32Array.from([-1, -2])], max: [Float32Array.from([1, 2])], firstRow: 0, rows: 20, raw: false };
    const p = envelopeToPlot(env, 10);
    expect([...p.x]).toEqual([0, 0.05, 0.1, 0.15]);
    expect([...p.ys[0]!]).toEqual([-1, 1, -2, 2]);
    const raw = envelopeToPlot({ ...env, raw: true, max: env.min }, 10);
    expect([...raw.x]).toEqual([0, 0.1]);
    expect([...raw.ys[0]!]).toEqual([-1, -2]);
  });
});
