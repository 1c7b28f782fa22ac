import { describe, expect, it } from 'vitest';
import { reasonOf } from '../../../src-main/core/classify/classify-client.js';
import { digestOf, readClassification, summarize, windowSpan, type RawClassifyAnswer } from '../../../src-main/core/classify/classify-result.js';
import type { Classification, ClassifiedWindow } from '../../../src-main/core/contract/classify-schema.js';
import { collectSummary } from '../../../src-main/core/classify/collect-summary.js';

const win = (label: string | null, confidence: number, extra: Partial<ClassifiedWindow> = {}): ClassifiedWindow =>
  ({ index: 0, startMs: 0, endMs: 0, label, confidence, scores: label ? { [label]: confidence } : {}, anomaly: null, uncertain: false, ...extra });

const answer = (result: Array<Record<string, number>>, more: Partial<RawClassifyAnswer> = {}): RawClassifyAnswer => ({
  classifications: [{ learnBlock: { id: 3, name: 'NN Classifier', title: 'Classification' }, result, minimumConfidenceRating: 0.6 }],
  sample: { sample: { totalLengthMs: 2300 }, payload: { intervalMs: 10 }, totalPayloadLength: 230 },
  windowSizeMs: 1000,
  windowIncreaseMs: 500,
  alreadyInDatabase: false,
  ...more,
});
const ctx = { sampleId: 's1', platformSampleId: 12, impulseId: null, variant: 'int8' as const, classifiedAt: '2025-01-01T00:00:00.000Z', expected: 'wave', localLengthMs: 2300 };

describe('the summary line', () => {
  it('leads with the expected label, its share and mean confidence, then what the other windows say', () => {
    const windows = [...Array(7).fill(0).map((_, i) => win('wave', i % 2 ? 0.9 : 0.92)), win('idle', 0.7), win('idle', 0.8)];
    const s = summarize(windows, 'wave');
    expect(s.text).toBe('wave: 7 of 9 windows, mean confidence 0.91; 2 windows say idle');
    expect(s).toMatchObject({ windows: 9, byLabel: { wave: 7, idle: 2 }, expected: 'wave', agree: 7, lead: 'wave', uncertain: 0, maxAnomaly: null });
    expect(s.meanConfidence).toBeCloseTo((4 * 0.92 + 3 * 0.9) / 7, 10);
  });
  it('says it plainly when the model never gives the expected label, or the sample has none', () => {
    expect(summarize([win('idle', 0.8), win('shake', 0.7), win('idle', 0.9)], 'wave').text).toBe('wave: 0 of 3 windows; 2 windows say idle, 1 window says shake');
    const none = summarize([win('idle', 0.8), win('shake', 0.7), win('idle', 0.9)], null);
    expect(none.text).toBe('idle: 2 of 3 windows, mean confidence 0.85; 1 window says shake');
    expect(none.agree).toBeNull();
    expect(summarize([], 'wave').text).toBe('no windows classified');
    expect(summarize([win('wave', 0.5, { uncertain: true, anomaly: 0.4 })], 'wave', ['wave'], 0.6).text).toBe('wave: 1 of 1 window, mean confidence 0.50; 1 uncertain (below 0.6); anomaly up to 0.40');
  });
});

describe('reading a classify/v2 answer', () => {
  it('gives window i the span i × increase to + size, clipped to the sample, and the top label', () => {
    const c = readClassification(answer([{ idle: 0.9, wave: 0.1 }, { idle: 0.3, wave: 0.7 }, { idle: 0.55, wave: 0.45 }]), ctx);
    expect(c.lengthMs).toBe(2300);
    expect(c.blocks[0]!.windows.map((w) => [w.startMs, w.endMs, w.label, w.confidence, w.uncertain])).toEqual([
      [0, 1000, 'idle', 0.9, false], [500, 1500, 'wave', 0.7, false], [1000, 2000, 'idle', 0.55, true],
    ]);
    expect(windowSpan(3, 1000, 500, 2300)).toEqual({ startMs: 1500, endMs: 2300 });
    expect(windowSpan(0, 1000, 500, 600)).toEqual({ startMs: 0, endMs: 600 });
    expect(c.blocks[0]).toMatchObject({ id: 3, name: 'NN Classifier', labels: ['idle', 'wave'], minimumConfidenceRating: 0.6, hasAnomaly: false });
    expect(c.blocks[0]!.summary.text).toBe('wave: 1 of 3 windows, mean confidence 0.70; 2 windows say idle; 1 uncertain (below 0.6)');
  });
  it('takes the length from the payload, then the local sample, when the platform does not give it', () => {
    expect(readClassification(answer([{ a: 1 }], { sample: { payload: { intervalMs: 10 }, totalPayloadLength: 150 } }), ctx).lengthMs).toBe(1500);
    expect(readClassification(answer([{ a: 1 }], { sample: {} }), { ...ctx, localLengthMs: 640 }).lengthMs).toBe(640);
    const clipped = readClassification(answer([{ a: 1 }], { sample: {} }), { ...ctx, localLengthMs: 640 });
    expect(clipped.blocks[0]!.windows[0]).toMatchObject({ startMs: 0, endMs: 640 });
  });
  it('keeps anomaly scores apart from the labels, and each learn block apart', () => {
    const a = answer([{ idle: 0.2, wave: 0.8, anomaly: 0.31 }], { warning: 'resampled' });
    a.classifications.push({ learnBlock: { id: 5, name: 'Rate' }, result: [{ slow: 0.1, fast: 0.9 }] });
    const c = readClassification(a, ctx);
    expect(c.warning).toBe('resampled');
    expect(c.blocks[0]!.windows[0]).toMatchObject({ label: 'wave', scores: { idle: 0.2, wave: 0.8 }, anomaly: 0.31 });
    expect(c.blocks[0]!.hasAnomaly).toBe(true);
    expect(c.blocks[1]).toMatchObject({ id: 5, name: 'Rate', title: 'Rate', minimumConfidenceRating: null });
    expect(digestOf(c).text).toBe('NN Classifier: wave: 1 of 1 window, mean confidence 0.80; anomaly up to 0.31 | Rate: wave: 0 of 1 window; 1 window says fast');
  });  it('marks no window of a regression block uncertain: its minimumConfidenceRating is an absolute error (declared)', () => {
    const a = answer([{ value: 0.2 }, { value: 3.5 }], {
      classifications: [{ learnBlock: { id: 7, type: 'keras-regression', name: 'Regression' }, result: [{ value: 0.2 }, { value: 3.5 }], minimumConfidenceRating: 2.5 }],
    });
    const c = readClassification(a, { ...ctx, expected: null });
    expect(c.blocks[0]!.windows.map((w) => [w.label, w.confidence, w.uncertain])).toEqual([['value', 0.2, false], ['value', 3.5, false]]);
    expect(c.blocks[0]).toMatchObject({ minimumConfidenceRating: null, summary: { uncertain: 0 } });
    expect(c.blocks[0]!.summary.text).not.toMatch(/uncertain/);
    // The same number on a classifier still marks its windows.
    const k = readClassification(answer([{ idle: 0.9, wave: 0.1 }], { classifications: [{ learnBlock: { id: 3, type: 'keras' }, result: [{ idle: 0.5, wave: 0.5 }], minimumConfidenceRating: 0.6 }] }), ctx);
    expect(k.blocks[0]!.windows[0]!.uncertain).toBe(true);
  });
  it('places fractional window sizes (declared numbers) as given', () => {
    const c = readClassification(answer([{ a: 1 }, { a: 1 }, { a: 1 }], { windowSizeMs: 333.5, windowIncreaseMs: 166.75 }), ctx);
    expect(c).toMatchObject({ windowSizeMs: 333.5, windowIncreaseMs: 166.75 });
    expect(c.blocks[0]!.windows.map((w) => [w.startMs, w.endMs])).toEqual([[0, 333.5], [166.75, 500.25], [333.5, 667]]);
  });
});

describe("the platform's error texts", () => {
  it('are told apart by their words', () => {
    // A running job is an answer (StartJobResponse), never an error text: no words are read as one.
    expect(reasonOf('A classification job for this sample is still running (job 1); try again in a few seconds')).toBe('platform');
    expect(reasonOf('No trained impulse in this project yet: design and train an impulse first')).toBe('no-impulse');
    expect(reasonOf('Impulse 9 not found')).toBe('impulse-not-found');
    expect(reasonOf('Sample not found')).toBe('deleted');
    expect(reasonOf('Project not found')).toBe('project-not-found');
    expect(reasonOf('The impulse cannot classify this sample: it takes audio (WAV), and this sample is sensor data')).toBe('cannot-classify');
    expect(reasonOf('Invalid variant "x"')).toBe('platform');
  });
});

describe('"collect more of"', () => {
  const kept = (id: string, labels: string[]): Classification => ({
    sampleId: id, platformSampleId: 1, impulseId: null, variant: 'int8', classifiedAt: '', lengthMs: 1000, windowSizeMs: 1000, windowIncreaseMs: 500, alreadyInDatabase: false, warning: null,
    blocks: [{ id: 1, name: 'b', title: '', labels: ['idle', 'wave', 'shake'], minimumConfidenceRating: null, hasAnomaly: false, windows: labels.map((l) => win(l, 0.9)), summary: summarize([], null) }],
  });
  it('counts takes and windows per label, the most-confused pairs first, and the labels the model gets wrong', () => {
    const takes = [{ id: 'a', label: 'wave' }, { id: 'b', label: 'wave' }, { id: 'c', label: 'idle' }, { id: 'd', label: 'shake' }, { id: 'e', label: null }];
    const k = new Map([
      ['a', kept('a', ['wave', 'wave', 'idle'])],
      ['b', kept('b', ['idle', 'idle', 'wave'])],
      ['c', kept('c', ['idle', 'idle'])],
      ['e', kept('e', ['shake'])],
    ]);
    const s = collectSummary(takes, k, { since: null, sessionId: null });
    expect(s).toMatchObject({ takes: 5, classifiedTakes: 4 });
    expect(s.labels).toEqual([
      { label: 'wave', takes: 2, classifiedTakes: 2, windows: 6, agree: 3, windowsClassifiedAs: 3 },
      { label: 'idle', takes: 1, classifiedTakes: 1, windows: 2, agree: 2, windowsClassifiedAs: 5 },
      { label: 'shake', takes: 1, classifiedTakes: 0, windows: 0, agree: 0, windowsClassifiedAs: 1 },
      { label: null, takes: 1, classifiedTakes: 1, windows: 1, agree: 0, windowsClassifiedAs: 0 },
    ]);
    expect(s.confusions).toEqual([{ expected: 'wave', predicted: 'idle', windows: 3 }]);
    expect(s.collectMoreOf).toEqual([{ label: 'wave', reason: 'the model got 3 of 6 windows of wave right; it most often said idle (3 windows)' }]);
  });
});
