import { describe, expect, it } from 'vitest';
import { anomalyByLabel, spreadOf } from '../../../src-main/core/evaluate/anomaly-figures.js';
import { classificationFigures } from '../../../src-main/core/evaluate/confusion.js';
import { regressionFigures } from '../../../src-main/core/evaluate/regression-figures.js';

const o = (actual: string, predicted: string) => ({ actual, predicted });

describe('classificationFigures', () => {
  it('counts the matrix and the figures of a hand-worked case', () => {
    // idle: 3 samples, 2 right, 1 said wave. wave: 4 samples, 2 right, 1 idle, 1 uncertain. noise: none.
    const f = classificationFigures(['idle', 'wave', 'noise'], [
      o('idle', 'idle'), o('idle', 'idle'), o('idle', 'wave'),
      o('wave', 'wave'), o('wave', 'wave'), o('wave', 'idle'), o('wave', 'uncertain'),
    ]);
    expect(f.samples).toBe(7);
    expect(f.accuracy).toBe(0.5714); // 4 / 7
    expect(f.uncertain).toBe(1);
    expect(f.confusion).toEqual({
      idle: { idle: 2, wave: 1, noise: 0, uncertain: 0 },
      wave: { idle: 1, wave: 2, noise: 0, uncertain: 1 },
    });
    // idle: P = 2/3 (said idle 3 times), R = 2/3, F1 = 2/3.
    expect(f.per_label['idle']).toEqual({ precision: 0.6667, recall: 0.6667, f1: 0.6667, support: 3 });
    // wave: P = 2/3 (said wave 3 times; the uncertain one is no prediction), R = 2/4, F1 = 2·(2/3·1/2)/(2/3+1/2) = 4/7.
    expect(f.per_label['wave']).toEqual({ precision: 0.6667, recall: 0.5, f1: 0.5714, support: 4 });
    // noise: never said, never present: every figure 0, not NaN.
    expect(f.per_label['noise']).toEqual({ precision: 0, recall: 0, f1: 0, support: 0 });
  });

  it('uncertain lowers recall, never precision', () => {
    const sure = classificationFigures(['a', 'b'], [o('a', 'a'), o('a', 'a'), o('b', 'b')]);
    const unsure = classificationFigures(['a', 'b'], [o('a', 'a'), o('a', 'uncertain'), o('b', 'b')]);
    expect(sure.per_label['a']).toEqual({ precision: 1, recall: 1, f1: 1, support: 2 });
    expect(unsure.per_label['a']).toEqual({ precision: 1, recall: 0.5, f1: 0.6667, support: 2 });
    expect(unsure.per_label['b']!.precision).toBe(1);
    expect(sure.confusion['a']).toEqual({ a: 2, b: 0 }); // no uncertain column where none occurs
  });

  it('is all zeros for no samples', () => {
    expect(classificationFigures(['a'], [])).toEqual({ samples: 0, accuracy: 0, uncertain: 0, per_label: { a: { precision: 0, recall: 0, f1: 0, support: 0 } }, confusion: {} });
  });
});

describe('regressionFigures', () => {
  it('gives MAE and RMSE of a hand-worked case', () => {
    // errors 1, -2, 0.5: MAE = 3.5 / 3, RMSE = sqrt((1 + 4 + 0.25) / 3) = sqrt(1.75).
    const f = regressionFigures([{ actual: 1, predicted: 2 }, { actual: 5, predicted: 3 }, { actual: 0, predicted: 0.5 }]);
    expect(f).toEqual({ samples: 3, mae: 1.166667, rmse: 1.322876 });
    expect(regressionFigures([])).toEqual({ samples: 0, mae: 0, rmse: 0 });
  });
});

describe('anomaly figures', () => {
  it('gives min, median and max per label', () => {
    expect(spreadOf([3, 1, 2])).toEqual({ min: 1, median: 2, max: 3, samples: 3 });
    expect(spreadOf([4, 1, 2, 3])).toEqual({ min: 1, median: 2.5, max: 4, samples: 4 });
    expect(spreadOf([])).toBeNull();
    expect(anomalyByLabel([{ label: 'a', anomaly: -1 }, { label: 'b', anomaly: 0.5 }, { label: 'a', anomaly: 2 }])).toEqual({
      a: { min: -1, median: 0.5, max: 2, samples: 2 },
      b: { min: 0.5, median: 0.5, max: 0.5, samples: 1 },
    });
  });
});
