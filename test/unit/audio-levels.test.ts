import { describe, expect, it } from 'vitest';
import { FLOOR_DBFS, LevelMonitor, measureBlock, type LevelReport } from '../../src-main/core/audio/levels.js';

const RATE = 16_000;
function sine(frames: number, amp: number, freq = 440, start = 0): Int16Array {
  // Clamped like a converter would (an Int16Array would wrap values beyond full scale).
  return Int16Array.from({ length: frames }, (_, i) => Math.max(-32768, Math.min(32767, Math.round(amp * 32767 * Math.sin((2 * Math.PI * freq * (start + i)) / RATE)))));
}
/** Feeds `seconds` of audio in 10 ms batches; returns every report. */
function feed(m: LevelMonitor, make: (frames: number, start: number) => Int16Array, seconds: number): LevelReport[] {
  const out: LevelReport[] = [];
  const batch = RATE / 100;
  for (let i = 0; i < seconds * 100; i++) out.push(...m.push(make(batch, i * batch)));
  return out;
}

describe('measureBlock', () => {
  it('gives RMS in dBFS (full-scale sine = -3 dBFS), peak and clipped fraction', () => {
    const full = measureBlock(sine(RATE, 1));
    expect(full.rmsDbfs).toBeCloseTo(-3.01, 1);
    expect(full.peak).toBeCloseTo(1, 3);
    expect(measureBlock(sine(RATE, 0.5)).rmsDbfs).toBeCloseTo(-9.03, 1);
    expect(measureBlock(new Int16Array(100)).rmsDbfs).toBe(FLOOR_DBFS);
    const clipped = measureBlock(Int16Array.from([32767, -32768, 0, 100]));
    expect(clipped.clippedFraction).toBe(0.5);
  });
});

describe('LevelMonitor', () => {
  it('reports at the configured rate and never more than 60 times a second', () => {
    expect(feed(new LevelMonitor({ sampleRate: RATE, maxReportsPerSecond: 30 }), (n, s) => sine(n, 0.5, 440, s), 2).length).toBe(60);
    expect(feed(new LevelMonitor({ sampleRate: RATE, maxReportsPerSecond: 500 }), (n, s) => sine(n, 0.5, 440, s), 1).length).toBeLessThanOrEqual(60);
  });

  it('merges what became due within one big batch into one report', () => {
    const m = new LevelMonitor({ sampleRate: RATE, maxReportsPerSecond: 30 });
    const reports = m.push(sine(RATE, 0.5));
    expect(reports).toHaveLength(1);
    expect(reports[0]!.frames).toBe(RATE - (RATE % Math.round(RATE / 30)));
    expect(reports[0]!.rmsDbfs).toBeCloseTo(-9.03, 1);
  });

  it('draws a min/max waveform with a fixed number of columns per second', () => {
    const m = new LevelMonitor({ sampleRate: RATE, columnsPerSecond: 200 });
    const reports = feed(m, (n, s) => sine(n, 0.5, 50, s), 1);
    const columns = reports.reduce((a, r) => a + r.waveform.length / 2, 0);
    expect(columns).toBeGreaterThanOrEqual(195);
    expect(columns).toBeLessThanOrEqual(200);
    const all = reports.flatMap((r) => [...r.waveform]);
    expect(Math.max(...all)).toBeCloseTo(0.5, 2);
    expect(Math.min(...all)).toBeCloseTo(-0.5, 2);
  });

  it('warns about clipping as it happens and for a moment after', () => {
    const m = new LevelMonitor({ sampleRate: RATE, clipHoldMs: 500 });
    const clipped = feed(m, (n, s) => sine(n, 1.2, 440, s), 0.2);
    expect(clipped.at(-1)!.clipping).toBe(true);
    expect(clipped.at(-1)!.clippedFraction).toBeGreaterThan(0);
    const after = feed(m, (n, s) => sine(n, 0.3, 440, s), 1);
    expect(after[0]!.clipping).toBe(true); // held
    expect(after.at(-1)!.clipping).toBe(false);
  });

  it('warns about silence only after it lasted', () => {
    const m = new LevelMonitor({ sampleRate: RATE, silenceAfterMs: 1000 });
    feed(m, (n, s) => sine(n, 0.5, 440, s), 0.5);
    const quiet = feed(m, (n) => new Int16Array(n), 1.5);
    expect(quiet[0]!.silent).toBe(false);
    expect(quiet.at(-1)!.silent).toBe(true);
    expect(quiet.at(-1)!.rmsDbfs).toBe(FLOOR_DBFS);
    const back = feed(m, (n, s) => sine(n, 0.5, 440, s), 0.1);
    expect(back.at(-1)!.silent).toBe(false);
  });
});
