import { describe, expect, it } from 'vitest';
import { clampView, envelopeToPlot, panView, revealView, zoomView } from '../../../src-renderer/lib/review/plot-data.js';

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

  it('pans just enough to show a window, zoom kept; nothing when it is already in view', () => {
    const v = { startMs: 2000, endMs: 4000 };
    expect(revealView(v, { startMs: 2500, endMs: 3500 }, 10_000, 80)).toBeNull();
    expect(revealView(v, { startMs: 4500, endMs: 5500 }, 10_000, 80)).toEqual({ startMs: 3500, endMs: 5500 });
    expect(revealView(v, { startMs: 1500, endMs: 2500 }, 10_000, 80)).toEqual({ startMs: 1500, endMs: 3500 });
    // Wider than the view: its start shows.
    expect(revealView({ startMs: 0, endMs: 500 }, { startMs: 3000, endMs: 4000 }, 10_000, 80)).toEqual({ startMs: 3000, endMs: 3500 });
    expect(revealView({ startMs: 9000, endMs: 10_000 }, { startMs: 9800, endMs: 10_400 }, 10_000, 80)).toBeNull(); // already at the end
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
