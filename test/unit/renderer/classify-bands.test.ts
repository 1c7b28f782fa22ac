import { describe, expect, it } from 'vitest';
import type { ClassifiedWindow } from '../../../src-main/core/contract/contract.js';
import { windowSpan } from '../../../src-main/core/classify/classify-result.js';
import { anomalyRuns, bandLayout, laneCount, MAX_LANES, nextWindow, xOf } from '../../../src-renderer/lib/classify/bands.js';
import { bandFill, LABEL_PALETTE, labelColor, NO_LABEL_COLOR, withAlpha } from '../../../src-renderer/lib/classify/colors.js';

/** Windows as the core makes them: i × increase to + size, clipped to the sample. */
function windows(n: number, sizeMs: number, increaseMs: number, lengthMs: number, anomaly: (i: number) => number | null = () => null): ClassifiedWindow[] {
  return Array.from({ length: n }, (_, i) => ({
    index: i, ...windowSpan(i, sizeMs, increaseMs, lengthMs), label: i % 2 ? 'idle' : 'wave', confidence: 0.9, scores: { wave: 0.9, idle: 0.1 }, anomaly: anomaly(i), uncertain: false,
  }));
}

describe('classification bands on the plot', () => {
  it('puts each window at its start and end on the plot scale: x = (ms − view start) / view span × width', () => {
    // A 3.2 s take, window 1000 ms every 500 ms: 5 windows, the view the whole sample on 800 px.
    const ws = windows(5, 1000, 500, 3200);
    const bands = bandLayout(ws, { startMs: 0, endMs: 3200 }, 800, laneCount(1000, 500));
    expect(bands.map((b) => [b.left, b.width])).toEqual([[0, 250], [125, 250], [250, 250], [375, 250], [500, 250]]);
    expect(bands.map((b) => b.lane)).toEqual([0, 1, 0, 1, 0]);
    expect(bands.every((b) => b.visible)).toBe(true);
    expect(xOf(1600, { startMs: 0, endMs: 3200 }, 800)).toBe(400);
  });

  it('follows zoom and pan: bands out of the view are not visible, partly shown ones reach past the edge', () => {
    const ws = windows(5, 1000, 500, 3200);
    const bands = bandLayout(ws, { startMs: 1200, endMs: 2200 }, 500, 2);
    expect(bands[0]).toMatchObject({ left: -600, width: 500, visible: false }); // 0–1000 ms ends before the view
    expect(bands[1]).toMatchObject({ left: -350, width: 500, visible: true }); // 500–1500 ms
    expect(bands[4]).toMatchObject({ left: 400, visible: true }); // 2000–3000 ms starts inside
    expect(bandLayout(ws, { startMs: 3000, endMs: 3200 }, 500, 2).filter((b) => b.visible).map((b) => b.index)).toEqual([]);
  });

  it('a last window clipped to the sample is drawn only as far as the sample goes', () => {
    const ws = windows(1, 1000, 500, 700);
    expect(ws[0]).toMatchObject({ startMs: 0, endMs: 700 });
    expect(bandLayout(ws, { startMs: 0, endMs: 700 }, 350, 2)[0]).toMatchObject({ left: 0, width: 350 });
  });

  it('stacks overlapping windows in ceil(size / increase) lanes, at most MAX_LANES; a band is at least 1 px', () => {
    expect(laneCount(1000, 500)).toBe(2);
    expect(laneCount(1000, 1000)).toBe(1);
    expect(laneCount(1000, 300)).toBe(4);
    expect(laneCount(1000, 50)).toBe(MAX_LANES);
    expect(laneCount(1000, 0)).toBe(1);
    const [b] = bandLayout(windows(1, 10, 10, 100_000), { startMs: 0, endMs: 100_000 }, 100, 1);
    expect(b!.width).toBe(1);
  });

  it('draws the anomaly score as a line through each window\'s middle, scaled to the highest score (at least 1), with gaps', () => {
    const ws = windows(4, 1000, 1000, 4000, (i) => [0.5, 2, null, 1][i]!);
    const { top, runs } = anomalyRuns(ws, { startMs: 0, endMs: 4000 }, 400, 100);
    expect(top).toBe(2);
    expect(runs).toEqual([[[50, 75], [150, 0]], [[350, 50]]]);
    expect(anomalyRuns(windows(1, 1000, 1000, 1000, () => 0.25), { startMs: 0, endMs: 1000 }, 100, 100)).toEqual({ top: 1, runs: [[[50, 75]]] });
  });

  it('walks the windows from the keyboard: arrows one at a time, Home and End to the ends; other keys are not its', () => {
    expect(nextWindow('ArrowRight', 2, 5)).toBe(3);
    expect(nextWindow('ArrowRight', 4, 5)).toBe(4);
    expect(nextWindow('ArrowLeft', 0, 5)).toBe(0);
    expect(nextWindow('Home', 3, 5)).toBe(0);
    expect(nextWindow('End', 1, 5)).toBe(4);
    expect(nextWindow('c', 1, 5)).toBeNull();
    expect(nextWindow('ArrowRight', 0, 0)).toBeNull();
  });
});

describe('label colours', () => {
  it('a label keeps the colour of its place in the block\'s labels; no label is grey', () => {
    const labels = ['idle', 'wave', 'shake'];
    expect(labels.map((l) => labelColor(labels, l))).toEqual(LABEL_PALETTE.slice(0, 3));
    expect(labelColor(labels, null)).toBe(NO_LABEL_COLOR);
    // Past the palette, colours repeat; an unknown label still gets the same colour every time.
    const many = Array.from({ length: 12 }, (_, i) => `l${i}`);
    expect(labelColor(many, 'l10')).toBe(LABEL_PALETTE[0]);
    expect(labelColor(labels, 'other')).toBe(labelColor(labels, 'other'));
    expect(LABEL_PALETTE).toContain(labelColor(labels, 'other'));
  });

  it('bands are translucent; uncertain ones are striped in the same colour', () => {
    expect(withAlpha('#4e79a7', 0.5)).toBe('rgba(78,121,167,0.5)');
    expect(bandFill('#4e79a7', false)).toBe('rgba(78,121,167,0.55)');
    expect(bandFill('#4e79a7', true)).toMatch(/^repeating-linear-gradient\(135deg, rgba\(78,121,167,0\.55\) .*rgba\(78,121,167,0\.15\)/);
  });
});
