import { describe, expect, it } from 'vitest';
import { samplePrediction, windowVerdict } from '../../../src-main/core/evaluate/verdicts.js';

describe('windowVerdict', () => {
  it('is the top label at or above the threshold, else uncertain', () => {
    expect(windowVerdict({ idle: 0.3, wave: 0.7 }, 0.6)).toBe('wave');
    expect(windowVerdict({ idle: 0.4, wave: 0.6 }, 0.6)).toBe('wave'); // equal to the threshold counts
    expect(windowVerdict({ idle: 0.45, wave: 0.55 }, 0.6)).toBe('uncertain');
    expect(windowVerdict({ idle: 0.45, wave: 0.55 }, 0)).toBe('wave');
  });

  it('is uncertain when two labels share the top score (exports quantise to 1/256), whatever the threshold', () => {
    expect(windowVerdict({ a: 128 / 256, b: 128 / 256 }, 0)).toBe('uncertain');
    expect(windowVerdict({ a: 0.1, b: 0.45, c: 0.45 }, 0.2)).toBe('uncertain');
    // A tie below the top is no tie.
    expect(windowVerdict({ a: 0.2, b: 0.2, c: 0.6 }, 0.5)).toBe('c');
  });

  it('is uncertain with no scores', () => {
    expect(windowVerdict({}, 0.5)).toBe('uncertain');
  });
});

describe('samplePrediction', () => {
  it('is the verdict most windows got', () => {
    expect(samplePrediction(['wave', 'idle', 'wave'])).toBe('wave');
    expect(samplePrediction(['idle'])).toBe('idle');
    expect(samplePrediction(['wave', 'uncertain', 'idle'])).toBe('uncertain'); // one each: a tie
  });

  it('is uncertain on a tie between verdicts, or when uncertain is the most frequent', () => {
    expect(samplePrediction(['wave', 'idle'])).toBe('uncertain');
    expect(samplePrediction(['wave', 'wave', 'idle', 'idle', 'uncertain'])).toBe('uncertain');
    expect(samplePrediction(['uncertain', 'uncertain', 'wave'])).toBe('uncertain');
    // uncertain in the minority does not stop a majority.
    expect(samplePrediction(['uncertain', 'wave', 'wave'])).toBe('wave');
    expect(samplePrediction([])).toBe('uncertain');
  });
});
