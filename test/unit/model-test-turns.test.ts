import { describe, expect, it } from 'vitest';
import type { Sample } from '../../src-main/core/contract/contract.js';
import type { ClassificationStore, LocalKey } from '../../src-main/core/classify/classification-store.js';
import type { ModelPool } from '../../src-main/core/model/model-pool.js';
import { testSamples } from '../../src-main/core/model/model-test.js';
import type { SampleStore } from '../../src-main/core/samples/sample-store.js';

// testSamples alone, with the index, the kept results and the pool stubbed: a re-test of many
// samples whose results are all kept must leave the core's event loop turns on the way (in the
// app it runs beside live captures), not read them all in one go.
const entry = {
  name: 'm', hash: 'ab'.repeat(32),
  description: { windowMs: 1000, labels: ['idle', 'wave'], axes: 1, modelType: 'classification', hasAnomaly: false },
} as unknown as ModelPool['entry'];
const windows = [{ index: 0, startMs: 0, endMs: 1000, label: 'idle', confidence: 0.9, scores: { idle: 0.9, wave: 0.1 }, anomaly: null, uncertain: false }];

function setUp(n: number) {
  const samples = Array.from({ length: n }, (_, i) => ({ id: `s${i}`, kind: 'audio', label: 'idle', lengthMs: 1000, sha256: `h${i}` }) as unknown as Sample);
  const key: (s: Sample) => LocalKey = (s) => ({ sampleSha256: s.sha256, threshold: 0.6, strideMs: 250, windowMs: 1000 });
  let reads = 0;
  const batches: number[] = [];
  const kept = {
    localKeys: (ids: readonly string[]) => new Map(ids.map((id) => [id, key(samples.find((s) => s.id === id)!)])),
    localWindows: (ids: readonly string[]) => {
      reads += ids.length;
      batches.push(ids.length);
      return new Map(ids.map((id) => [id, windows]));
    },
    keepAll: () => undefined,
  } as unknown as ClassificationStore;
  const pool = { entry, map: async () => [] } as unknown as ModelPool;
  return { samples, kept, pool, reads: () => reads, batches };
}

describe('testSamples on kept results', () => {
  it('reuses every kept result and gives the event loop a turn every 100 samples', async () => {
    const { samples, kept, pool, reads, batches } = setUp(1000);
    let turns = 0;
    let on = true;
    const tick = (): void => {
      turns++;
      if (on) setImmediate(tick);
    };
    setImmediate(tick);
    const out = await testSamples({ store: {} as SampleStore, kept, pool, strideMs: null, threshold: 0.6 }, samples);
    on = false;
    expect(reads()).toBe(1000);
    // Read a turn's worth at a time, each in one statement.
    expect(batches).toEqual(Array(10).fill(100));
    expect(out.every((t) => t.unfit === undefined && t.reused)).toBe(true);
    expect(turns).toBeGreaterThanOrEqual(9);
  });

  it('a cancel between turns stops the run there, with how far it got', async () => {
    const { samples, kept, pool } = setUp(1000);
    const stop = new AbortController();
    setImmediate(() => stop.abort());
    await expect(testSamples({ store: {} as SampleStore, kept, pool, strideMs: null, threshold: 0.6, signal: stop.signal }, samples)).rejects.toThrow(
      /^The test of model "m" was stopped after 100 of 1000 samples; the samples classified keep their results\.$/,
    );
  });
});
