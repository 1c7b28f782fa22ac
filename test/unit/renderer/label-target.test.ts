// The class balance's "Target for a label": a label or number the contract would refuse is said in
// words before anything is saved (it was "Invalid arguments for settings.set (labelTargets.xxxx…:
// Invalid key in record)"), and what the contract takes is taken.
import { describe, expect, it } from 'vitest';
import { Settings } from '../../../src-main/core/contract/app-schema.js';
import { labelTarget } from '../../../src-renderer/lib/samples/label-target.js';

const takes = (label: string, n: number) => Settings.shape.labelTargets.safeParse({ [label]: n }).success;

describe('a label target as typed', () => {
  it('says a label over 128 characters, or with a line break, in the label rule’s words', () => {
    expect(labelTarget('x'.repeat(200), '5')).toEqual({ ok: false, problem: 'The label is 200 characters long; a label is at most 128. Shorten it.' });
    expect(labelTarget('a\nb', '5')).toMatchObject({ ok: false, problem: expect.stringContaining('line break') });
    expect(takes('x'.repeat(200), 5)).toBe(false); // what the contract would have refused
  });

  it('says a number that is not a whole one from 1 to a million', () => {
    for (const n of ['0', '-3', '2.5', 'abc', '1000001']) {
      expect(labelTarget('wave', n)).toEqual({ ok: false, problem: 'Target for "wave" must be a whole number from 1 to 1,000,000, or empty for none.' });
    }
    expect(takes('wave', 1_000_001)).toBe(false);
  });

  it('takes what the contract takes; empty clears the target', () => {
    expect(labelTarget('x'.repeat(128), '1000000')).toEqual({ ok: true, target: 1_000_000 });
    expect(takes('x'.repeat(128), 1_000_000)).toBe(true);
    expect(labelTarget('wave', ' 50 ')).toEqual({ ok: true, target: 50 });
    expect(labelTarget('wave', '')).toEqual({ ok: true, target: null });
  });
});
