import { describe, expect, it } from 'vitest';
import type { ClassifiedWindow } from '../../../src-main/core/contract/contract.js';
import { fixedAndBroken, pairTested } from '../../../src-main/core/evaluate/model-comparison.js';
import { modelReport, type Tested } from '../../../src-main/core/evaluate/model-report.js';

/** One window whose top label is `label` (0.9), the other 0.1. */
const w = (label: string): ClassifiedWindow => ({ index: 0, startMs: 0, endMs: 1000, label, confidence: 0.9, scores: { idle: label === 'idle' ? 0.9 : 0.1, wave: label === 'wave' ? 0.9 : 0.1 }, anomaly: null, uncertain: false });
const counted = (id: string, label: string, said: string): Tested => ({ id, label, windows: [w(said)] });
const kind = { regression: false, hasAnomaly: false, labels: ['idle', 'wave'] };

describe('pairTested', () => {
  it('makes a sample unfit for either model unfit for both, with both reasons in the models\' order', () => {
    const a = [counted('s1', 'idle', 'idle'), { id: 's2', unfit: 'too short' }, { id: 's3', unfit: 'no label' }];
    const b = [{ id: 's1', unfit: '2 axes' }, counted('s2', 'idle', 'idle'), { id: 's3', unfit: 'no label' }];
    const [pa, pb] = pairTested(['A', 'B'], [a, b]);
    expect(pa).toEqual([{ id: 's1', unfit: 'model "B": 2 axes' }, { id: 's2', unfit: 'model "A": too short' }, { id: 's3', unfit: 'model "A": no label; model "B": no label' }]);
    expect(pb).toEqual(pa);
  });

  it('keeps samples both can count as they were', () => {
    const a = [counted('s1', 'idle', 'idle')];
    const b = [counted('s1', 'idle', 'wave')];
    expect(pairTested(['A', 'B'], [a, b])).toEqual([a, b]);
  });
});

describe('fixedAndBroken', () => {
  it('lists what B gets right and A got wrong (fixed) and the reverse (broken), in A\'s order; both right or both wrong in neither', () => {
    const A = modelReport(kind, [counted('s1', 'idle', 'wave'), counted('s2', 'wave', 'wave'), counted('s3', 'idle', 'idle'), counted('s4', 'wave', 'idle'), counted('s5', 'idle', 'wave')], 0.6);
    const B = modelReport(kind, [counted('s1', 'idle', 'idle'), counted('s2', 'wave', 'idle'), counted('s3', 'idle', 'idle'), counted('s4', 'wave', 'idle'), counted('s5', 'idle', 'idle')], 0.6);
    expect(fixedAndBroken(A, B)).toEqual({ fixed: ['s1', 's5'], broken: ['s2'] });
    expect(fixedAndBroken(B, A)).toEqual({ fixed: ['s2'], broken: ['s1', 's5'] });
  });
});
