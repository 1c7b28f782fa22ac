// CatchKeeper alone (its `save` a recorder of what it was given): the rows it keeps are on the
// stream's axis, as the verdicts are, also when the model started long after the stream did
// (test/integration/catch-mode.test.ts runs it through the built CLI and the app on a PTY board).
import { describe, expect, it } from 'vitest';
import type { Sample } from '../../src-main/core/contract/contract.js';
import type { ModelVerdict } from '../../src-main/core/contract/model-schema.js';
import { CatchKeeper } from '../../src-main/core/model/catch-keeper.js';
import type { CaughtSpan } from '../../src-main/core/model/catch-spans.js';

const miss = (startMs: number, endMs: number): ModelVerdict => ({
  index: 0, startMs, endMs, label: 'wave', confidence: 0.95, scores: { idle: 0.05, wave: 0.95 }, anomaly: null, uncertain: false, classifyMs: 0.1,
});

function keeper() {
  const saved: Array<{ span: CaughtSpan; values: number[]; firstRow: number }> = [];
  const k = new CatchKeeper(
    { expected: 'idle', background: false, threshold: 0.6, marginMs: 500 },
    { perMinuteCap: 20, axes: 1, rateHz: 62.5, windowMs: 2000 },
    async (span, values, rows, firstRow) => {
      saved.push({ span, values: Array.from(values.subarray(0, rows)), firstRow });
      return { id: `s${saved.length}` } as Sample;
    },
  );
  return { k, saved };
}

describe('CatchKeeper on the stream\'s axis', () => {
  it('cuts a span from the rows where the stream has them when the model began 1000 rows in; a margin before its first row starts the sample there, and says so', async () => {
    const { k, saved } = keeper();
    // Each row's value is its row index on the stream: 1000 (16 s at 62.5 Hz) onwards.
    k.rows(Float64Array.from({ length: 200 }, (_, i) => 1000 + i), 200, 1000);
    k.rows(Float64Array.from({ length: 100 }, (_, i) => 1200 + i), 100);
    k.verdict(miss(16_000, 18_000)); // the model's first window: rows 1000..1124
    k.verdict(miss(18_000, 20_000)); // the next but three: 1125..1249
    await k.flush();
    expect(saved).toHaveLength(1); // the two misses' margins touch: one span
    const [{ span, values, firstRow }] = saved as [(typeof saved)[0]];
    expect(span.startMs).toBe(16_000); // not 15 500: the rows begin at the model's first
    expect(span.endMs).toBe(20_500);
    expect(span.note).not.toMatch(/left memory/);
    expect(firstRow).toBe(1000);
    expect(values[0]).toBe(1000);
    expect(values).toEqual(Array.from({ length: 281 }, (_, i) => 1000 + i)); // to 20 500 ms: row 1281
  });

  it('a source without row indices counts from its first row, as before', async () => {
    const { k, saved } = keeper();
    k.rows(Float64Array.from({ length: 250 }, (_, i) => i), 250);
    k.verdict(miss(1000, 3000));
    await k.flush();
    expect(saved[0]!.span.startMs).toBe(500);
    expect(saved[0]!.values[0]).toBe(Math.round(500 / 16));
    expect(saved[0]!.values).toHaveLength(Math.round(3500 / 16) - Math.round(500 / 16));
  });
});
