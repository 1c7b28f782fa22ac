import { describe, expect, it } from 'vitest';
import type { ClassifiedWindow, ClassifyState, ModelEntry } from '../../../src-main/core/contract/contract.js';
import { summarize } from '../../../src-main/core/classify/classify-result.js';
import { sourceText } from '../../../src-main/core/contract/classify-schema.js';
import {
  afterUploadBoxes, afterUploadNote, afterUploadOf, agreeText, ago, bandCaption, collectHeadline, madeText, modelMisfit, progressText, scoresText, secondsLeft, sourceWords, takeText, takesText, windowText,
} from '../../../src-renderer/lib/classify/words.js';

const w = (o: Partial<ClassifiedWindow> = {}): ClassifiedWindow => ({
  index: 1, startMs: 500, endMs: 1500, label: 'wave', confidence: 0.914, scores: { idle: 0.05, wave: 0.914, shake: 0.036 }, anomaly: null, uncertain: false, ...o,
});
const state = (o: Partial<ClassifyState>): ClassifyState => ({
  id: 's1', auto: true, state: 'classifying', impulseId: null, variant: 'int8', attempt: 1, retryInMs: null, message: null, digest: null, error: null, ...o,
});

describe('a window in words', () => {
  it('says its place, span, top label and confidence (what focus announces), uncertain and anomaly when so', () => {
    expect(windowText(w(), { minimumConfidenceRating: 0.6 }, 5)).toBe('Window 2 of 5, 0.50–1.50 s: wave, 0.91 confidence');
    expect(windowText(w({ confidence: 0.41, uncertain: true, anomaly: 0.318 }), { minimumConfidenceRating: 0.6 }, 5))
      .toBe('Window 2 of 5, 0.50–1.50 s: wave, 0.41 confidence, uncertain (below 0.60), anomaly 0.32');
    expect(windowText(w({ label: null, confidence: null, scores: {} }), { minimumConfidenceRating: null }, 1)).toBe('Window 2 of 1, 0.50–1.50 s: no label');
  });

  it('captions the band with its label and confidence, and lists every score highest first', () => {
    expect(bandCaption(w())).toBe('wave 0.91');
    expect(bandCaption(w({ label: null, confidence: null }))).toBe('no label');
    expect(scoresText(w())).toBe('wave 0.91, idle 0.05, shake 0.04');
  });

  it('shows the core\'s summary line as the summary (the app adds no wording of its own)', () => {
    const ws = [w({ index: 0 }), w({ index: 1 }), w({ index: 2, label: 'idle', confidence: 0.7, scores: { idle: 0.7, wave: 0.3 } })];
    expect(summarize(ws, 'wave', ['idle', 'wave']).text).toBe('wave: 2 of 3 windows, mean confidence 0.91; 1 window says idle');
  });
});

describe('when and how a result was made', () => {
  it('says how long ago', () => {
    const now = Date.parse('2025-05-01T12:00:00Z');
    expect(ago(now - 10_000, now)).toBe('just now');
    expect(ago(now - 3 * 60_000, now)).toBe('3 min ago');
    expect(ago(now - 5 * 3600_000, now)).toBe('5 h ago');
    expect(ago(now - 3 * 86400_000, now)).toBe('3 days ago');
    expect(ago(now + 5000, now)).toBe('just now');
  });

  it('names the time and the source in words (the platform, its impulse and variant; or the model on this computer), and a result the platform had already', () => {
    const now = Date.parse('2025-05-01T12:03:00Z');
    const text = madeText({ classifiedAt: '2025-05-01T12:00:00Z', variant: 'int8', impulseId: null, alreadyInDatabase: false }, now);
    expect(text).toMatch(/^Classified .+ \(3 min ago\) · the platform, default impulse, int8$/);
    expect(madeText({ classifiedAt: '2025-05-01T12:00:00Z', variant: 'float32', impulseId: 4, alreadyInDatabase: true }, now)).toMatch(/· the platform, impulse 4, float32 · already in the project's training data$/);
    const local = { classifiedAt: '2025-05-01T12:00:00Z', variant: 'local:0123456789abcdef', impulseId: null, alreadyInDatabase: false, local: { model: 'gestures', hash: '0123456789abcdef'.repeat(4), threshold: 0.7 } };
    expect(madeText(local, now)).toMatch(/^Classified .+ \(3 min ago\) · on this computer: gestures \(uncertain below 0\.7\)$/);
    expect(sourceWords(local)).toBe('on this computer: gestures');
    expect(sourceWords({ variant: 'int8', impulseId: 2, local: null })).toBe('the platform, impulse 2, int8');
    // The same words as the core's (ClassificationDigest.source).
    for (const c of [local, { variant: 'float32', impulseId: null, local: null }]) expect(sourceWords(c)).toBe(sourceText(c));
  });

  it('says why an added model cannot classify a sample: its files, its axes, the sample\'s axes, rate and length', () => {
    const model = (o: { axes?: number | null; status?: 'ready' | 'missing'; problem?: string | null } = {}) => ({
      name: 'gestures', status: o.status ?? 'ready', problem: o.problem ?? null,
      description: { axes: o.axes === undefined ? 3 : o.axes, frequencyHz: 62.5, windowMs: 2000 } as ModelEntry['description'],
    });
    const sample = (axes: number, intervalMs = 16, lengthMs = 4000, kind: 'sensor' | 'audio' = 'sensor') => ({ axes: Array.from({ length: axes }, (_, i) => ({ name: `a${i}`, units: '' })), intervalMs, lengthMs, kind });
    expect(modelMisfit(model(), sample(3))).toBeNull();
    expect(modelMisfit(model(), sample(3, 10))).toBeNull(); // 100 Hz is resampled to 62.5 Hz
    expect(modelMisfit(model(), null)).toBeNull(); // not known yet: the core says
    expect(modelMisfit(model(), sample(1, 1000 / 16000, 4000, 'audio'))).toBe('it takes 3 axes; this sample has 1 (audio)');
    expect(modelMisfit(model(), sample(3, 100))).toBe('it needs 62.5 Hz; this sample is at 10 Hz');
    expect(modelMisfit(model(), sample(3, 16, 1600))).toBe('its window is 2.00 s; this sample is 1.60 s long');
    expect(modelMisfit(model({ axes: null }), sample(3))).toBe('it does not say how many axes it takes: give them in Settings → Models');
    expect(modelMisfit(model({ status: 'missing', problem: 'Its files are gone.' }), sample(3))).toBe('Its files are gone.');
  });
});

describe('progress and the take\'s line in the capture panel', () => {
  it('counts down to the next request while the platform\'s job runs', () => {
    expect(secondsLeft(10_000, 7_900)).toBe(3);
    expect(secondsLeft(10_000, 12_000)).toBe(0);
    expect(progressText(state({ state: 'classifying' }), null)).toBe('Asking the platform to classify it…');
    expect(progressText(state({ state: 'waiting', attempt: 2, retryInMs: 2000 }), 2)).toBe("Waiting for the platform's classification job; looking at it again in 2 s (request 2).");
    expect(progressText(state({ state: 'done' }), null)).toBeNull();
  });

  it('gives the summary when done, and the core\'s words when it failed', () => {
    const digest = { id: 's1', impulseId: null, variant: 'int8' as const, local: null, source: 'the platform, default impulse, int8', classifiedAt: 'x', warning: null, text: 'wave: 4 of 5 windows, mean confidence 0.88; 1 window says idle', blocks: [] };
    expect(takeText(state({ state: 'done', digest }), null)).toBe('Model says: wave: 4 of 5 windows, mean confidence 0.88; 1 window says idle');
    const error = { code: 'Unavailable' as const, message: 'Project 1 has no trained impulse yet. Design and train an impulse on the platform, then classify again.', details: { reason: 'no-impulse' } };
    expect(takeText(state({ state: 'failed', error }), null)).toBe(`Not classified: ${error.message}`);
    expect(takeText(state({ state: 'cancelled' }), null)).toBe('Classification cancelled; nothing was kept.');
    expect(takeText(state({ state: 'waiting', retryInMs: 4000 }), 4)).toContain('looking at it again in 4 s');
  });
});

describe('the capture option', () => {
  it('is two boxes: on (testing takes) and every take', () => {
    expect(afterUploadBoxes('off')).toEqual({ on: false, all: false });
    expect(afterUploadBoxes('testing')).toEqual({ on: true, all: false });
    expect(afterUploadBoxes('all')).toEqual({ on: true, all: true });
    expect(afterUploadOf(false, true)).toBe('off');
    expect(afterUploadOf(true, false)).toBe('testing');
    expect(afterUploadOf(true, true)).toBe('all');
  });

  it('says when the take being set up will not be classified, or only once uploaded', () => {
    expect(afterUploadNote('off', 'training', true)).toBeNull();
    expect(afterUploadNote('testing', 'testing', true)).toBeNull();
    expect(afterUploadNote('testing', 'training', true)).toMatch(/^Takes going to training are not classified/);
    expect(afterUploadNote('all', 'training', true)).toBeNull();
    expect(afterUploadNote('all', 'training', false)).toMatch(/once you upload them/);
  });
});

describe('the session summary in words', () => {
  it('says takes, windows right and the scope', () => {
    expect(takesText({ takes: 3, classifiedTakes: 2 })).toBe('3 takes, 2 classified');
    expect(agreeText({ windows: 10, agree: 8, classifiedTakes: 2 })).toBe('8 of 10 windows right (80%)');
    expect(agreeText({ windows: 0, agree: 0, classifiedTakes: 0 })).toBe('not classified yet');
    expect(collectHeadline({ takes: 1, classifiedTakes: 0, since: null, sessionId: null })).toBe('1 take, 0 classified');
    expect(collectHeadline({ takes: 2, classifiedTakes: 1, since: null, sessionId: 'abc' })).toBe('2 takes in session abc, 1 classified');
    expect(collectHeadline({ takes: 2, classifiedTakes: 2, since: '2025-05-01T12:00:00Z', sessionId: null })).toMatch(/^2 takes since .+, 2 classified$/);
  });
});
