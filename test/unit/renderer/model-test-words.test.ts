import { describe, expect, it } from 'vitest';
import type { ModelTestFigures, ModelTestResult } from '../../../src-main/core/contract/contract.js';
import { cellChipText, cellIds, cellShown, differences, headline, matrixOf, reuseText, testProgressText } from '../../../src-renderer/lib/models/test-words.js';

const figures = (over: Partial<ModelTestFigures> = {}): ModelTestFigures => ({
  model: 'a', regression: false, labels: ['idle', 'wave'], windowMs: 2000, strideMs: 500, classified: 3, reused: 1,
  accuracy: 0.5, uncertain: 1, perLabel: {}, mae: null, rmse: null, anomaly: null,
  confusion: { idle: { idle: 1, wave: 1, uncertain: 0 }, wave: { idle: 0, wave: 1, uncertain: 1 } },
  ...over,
});

const result = (models: ModelTestFigures[] = [figures()]): ModelTestResult => ({
  threshold: 0.6, matched: 5, models,
  samples: [
    { id: 'i1', name: 'i1.json', label: 'idle', predicted: ['idle', 'wave'], correct: [true, false] },
    { id: 'i2', name: 'i2.json', label: 'idle', predicted: ['wave', 'idle'], correct: [false, true] },
    { id: 'w1', name: 'w1.json', label: 'wave', predicted: ['wave', 'wave'], correct: [true, true] },
    { id: 'w2', name: 'w2.json', label: 'wave', predicted: ['uncertain', 'wave'], correct: [false, true] },
  ],
  unfit: [{ id: 'u', name: 'u.json', reason: 'too short' }], fixed: ['i2', 'w2'], broken: ['i1'],
});

describe('matrixOf', () => {
  it('lays out the core\'s matrix in its order, each cell with its share of the row and right or wrong in words', () => {
    const m = matrixOf(figures());
    expect(m.cols).toEqual(['idle', 'wave', 'uncertain']);
    expect(m.rows.map((r) => [r.actual, r.total, r.cells.map((c) => c.count)])).toEqual([['idle', 2, [1, 1, 0]], ['wave', 2, [0, 1, 1]]]);
    const [idle, wave] = m.rows;
    expect(idle!.cells[0]).toMatchObject({ right: true, share: 0.5, words: 'actual idle, predicted idle: 1 sample (50.0 % of idle), right' });
    expect(idle!.cells[1]!.words).toBe('actual idle, predicted wave: 1 sample (50.0 % of idle), wrong');
    expect(wave!.cells[0]!.words).toBe('actual wave, predicted idle: 0 samples (0.0 % of wave)');
    expect(wave!.cells[2]).toMatchObject({ right: false, share: 0.5 });
  });

  it('is empty when nothing was counted', () => {
    expect(matrixOf(figures({ confusion: {} }))).toEqual({ cols: [], rows: [] });
  });
});

describe('cellIds', () => {
  it('finds exactly the samples of a cell, per model', () => {
    const r = result([figures(), figures({ model: 'b' })]);
    expect(cellIds(r, 0, 'idle', 'wave')).toEqual(['i2']);
    expect(cellIds(r, 1, 'idle', 'wave')).toEqual(['i1']);
    expect(cellIds(r, 0, 'wave', 'uncertain')).toEqual(['w2']);
    expect(cellIds(r, 1, 'wave', 'wave')).toEqual(['w1', 'w2']);
    expect(cellIds(r, 0, 'wave', 'idle')).toEqual([]);
  });
  it('shows a cell of more samples than a filter takes as its first 5,000, and says so in the chip', () => {
    const ids = Array.from({ length: 5002 }, (_, i) => `s${i}`);
    const shown = cellShown('actual idle · predicted wave', ids);
    expect(shown.text).toBe('actual idle · predicted wave (the first 5,000 of 5,002)');
    expect(shown.ids).toEqual(ids.slice(0, 5000));
    expect(cellShown('actual idle · predicted wave', ['a'])).toEqual({ text: 'actual idle · predicted wave', ids: ['a'] });
  });
  it('names the cell in words for its chip', () => {
    expect(cellChipText('idle', 'wave')).toBe('actual idle · predicted wave');
  });
});

describe('the sentences', () => {
  it('says the accuracy, the right ones, the uncertain and the unfit', () => {
    const r = result();
    expect(headline(r.models[0]!, r)).toBe('Accuracy 50.0 %: 2 of 4 samples counted right; 1 uncertain; 1 unfit.');
  });
  it('says a regression model\'s errors', () => {
    const f = figures({ regression: true, accuracy: null, uncertain: null, mae: 0.25, rmse: 0.5, confusion: {} });
    expect(headline(f, result([f]))).toBe('Mean absolute error 0.25, RMSE 0.5 over 4 samples counted; 1 unfit.');
  });
  it('says how many were classified and how many kept results were reused', () => {
    expect(reuseText(figures())).toBe('Classified 3 samples (windows of 2000 ms every 500 ms); 1 kept result of the same build, stride, threshold and sample content reused.');
    expect(reuseText(figures({ classified: 0, reused: 7 }))).toBe('Classified 0 samples (windows of 2000 ms every 500 ms); 7 kept results of the same build, stride, threshold and sample content reused.');
  });
  it('lists what the second model fixed and broke, with what both said', () => {
    const d = differences(result([figures(), figures({ model: 'b' })]));
    expect(d.fixed.map((x) => x.text)).toEqual(['i2.json: idle; "a" said wave, "b" said idle', 'w2.json: wave; "a" said uncertain, "b" said wave']);
    expect(d.broken.map((x) => x.text)).toEqual(['i1.json: idle; "a" said idle, "b" said wave']);
  });
});

describe('testProgressText', () => {
  it('counts samples as they are with one model', () => {
    expect(testProgressText(3, 9, 1)).toBe('3 of 9');
  });
  it('says with two models that each sample is tested twice, so 18 is not read as 18 samples', () => {
    expect(testProgressText(12, 18, 2)).toBe('12 of 18 sample tests (9 samples, each by 2 models)');
    expect(testProgressText(0, 2, 2)).toBe('0 of 2 sample tests (1 sample, each by 2 models)');
  });
});
