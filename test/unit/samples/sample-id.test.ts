import { describe, expect, it } from 'vitest';
import { newSampleId } from '../../../src-main/core/samples/sample-id.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('newSampleId', () => {
  it('is a UUID version 7 whose first 48 bits are the creation time in milliseconds', () => {
    const at = Date.UTC(2026, 0, 25, 4, 20, 0, 123); // before any other test's clock: ids never go back in time
    const id = newSampleId(at);
    expect(id).toMatch(V7);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(at);
  });

  it('sorts ids made later after earlier ones, so bulk inserts append to the index', () => {
    const t = Date.now();
    const early = Array.from({ length: 300 }, () => newSampleId(t));
    const late = Array.from({ length: 300 }, () => newSampleId(t + 1));
    for (const e of early) for (const l of late.slice(0, 20)) expect(e < l).toBe(true);
  });

  it('never sorts before an id already made when the clock steps back', () => {
    const t = Date.now() + 60_000;
    const before = newSampleId(t);
    const after = newSampleId(t - 5_000);
    expect(after.slice(0, 13)).toBe(before.slice(0, 13));
    expect(parseInt(after.replace(/-/g, '').slice(0, 12), 16)).toBe(t);
  });

  it('makes no id twice, within one millisecond and across the random pool refills', () => {
    const t = Date.now() + 120_000;
    const ids = Array.from({ length: 100_000 }, () => newSampleId(t));
    expect(new Set(ids).size).toBe(ids.length);
    ids.slice(0, 1000).forEach((id) => expect(id).toMatch(V7));
  });
});
