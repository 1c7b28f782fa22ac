// The sample view's classification state and the table's "model says" column, against a fake Api
// that answers like the core (the e2e spec runs them against the real core and platform emulator).
import { describe, expect, it, vi } from 'vitest';
import type { Classification, ClassificationDigest, ClassifyState, ModelEntry } from '../../../src-main/core/contract/contract.js';
import { ApiError } from '../../../src-renderer/lib/api/client.js';
import { ModelSays } from '../../../src-renderer/lib/state/model-says.svelte.js';
import { SampleClassification } from '../../../src-renderer/lib/state/sample-classification.svelte.js';
import type { SampleChange, SampleIndex } from '../../../src-renderer/lib/state/sample-index.svelte.js';
import { fakeApi } from '../../support/renderer/fake-api.js';

const result = (variant: 'int8' | 'float32', at = '2025-05-01T12:00:00.000Z'): Classification => ({
  sampleId: 's1', platformSampleId: 7, impulseId: null, variant, classifiedAt: at, lengthMs: 2000, windowSizeMs: 1000, windowIncreaseMs: 500, alreadyInDatabase: false, warning: null,
  blocks: [3, 8].map((id) => ({
    id, name: `Block ${id}`, title: '', labels: ['wave'], minimumConfidenceRating: 0.6, hasAnomaly: false,
    windows: [0, 1, 2].map((i) => ({ index: i, startMs: i * 500, endMs: i * 500 + 1000, label: 'wave', confidence: 0.9, scores: { wave: 0.9 }, anomaly: null, uncertain: false })),
    summary: { windows: 3, byLabel: { wave: 3 }, expected: 'wave', agree: 3, lead: 'wave', meanConfidence: 0.9, uncertain: 0, maxAnomaly: null, text: 'wave: 3 of 3 windows, mean confidence 0.90' },
  })),
});
const options = { projectId: 1, variant: 'int8' as const, impulseId: null, afterUpload: 'off' as const };

describe('the sample view\'s classification', () => {
  it('opens with the remembered variant and the result kept for it, asking nothing of the platform', async () => {
    const { api, calls } = fakeApi({ 'samples.classifyOptions': () => ({ ...options, variant: 'float32' }), 'samples.classification': () => result('float32') });
    const c = new SampleClassification(api, 's1');
    await c.load();
    expect(c.variant).toBe('float32');
    expect(c.result?.variant).toBe('float32');
    expect(c.block?.id).toBe(3);
    expect(calls.map((x) => x.method)).toEqual(['samples.classifyOptions', 'models.list', 'samples.modelSays', 'samples.classification']);
    expect(calls[3]!.input).toEqual({ id: 's1', variant: 'float32', impulseId: null });
  });

  it('opens on a result made on this computer when that is the newest, its model picked; classifies again with it, no platform asked', async () => {
    const localResult = (at: string): Classification => ({ ...result('int8', at), platformSampleId: null, variant: 'local:0123456789abcdef', local: { model: 'gestures', hash: '0123456789abcdef'.repeat(4), threshold: 0.6 } });
    const entry = (name: string, axes: number) => ({ name, status: 'ready', problem: null, description: { axes, frequencyHz: 62.5, windowMs: 2000 } }) as unknown as ModelEntry;
    const { api, calls, emit } = fakeApi({
      'samples.classifyOptions': () => options,
      'models.list': () => [entry('gestures', 3), entry('kws', 1)],
      'samples.modelSays': () => ({ results: [{ id: 's1', local: { model: 'gestures' } }] }),
      'samples.classification': (i: { model?: string }) => (i.model === 'gestures' ? localResult('2025-05-01T12:00:00.000Z') : null),
      'samples.classifyLocal': () => localResult('2025-05-01T13:00:00.000Z'),
    });
    const overview = { axes: [{ name: 'x', units: '' }, { name: 'y', units: '' }, { name: 'z', units: '' }], intervalMs: 16, lengthMs: 4000, kind: 'sensor' as const };
    const c = new SampleClassification(api, 's1', () => overview);
    const off = c.watchModels();
    await c.load();
    expect(c.source).toBe('gestures');
    expect(c.result?.local?.model).toBe('gestures');
    expect(calls.at(-1)!.input).toEqual({ id: 's1', model: 'gestures' });
    expect(c.choices).toEqual([{ name: 'gestures', misfit: null }, { name: 'kws', misfit: 'it takes 1 axis; this sample has 3' }]);
    await c.classify();
    expect(calls.at(-1)).toEqual({ method: 'samples.classifyLocal', input: { id: 's1', model: 'gestures' } });
    expect(c.result?.classifiedAt).toBe('2025-05-01T13:00:00.000Z');
    expect(calls.some((x) => x.method === 'samples.classify')).toBe(false);
    // Back to the platform's impulse: its kept result (none) is shown, not the local one.
    await c.chooseSource(null);
    expect(c.result).toBeNull();
    expect(calls.at(-1)!.input).toEqual({ id: 's1', variant: 'int8', impulseId: null });
    // A result the platform made after the upload is not fetched over a local source, and models removed elsewhere go.
    await c.chooseSource('gestures');
    emit('models.changed', [entry('gestures', 3)]);
    expect(c.choices).toEqual([{ name: 'gestures', misfit: null }]);
    off();
  });

  it('a new variant is remembered and shows the result kept for it (none yet: nothing shown)', async () => {
    const { api, calls } = fakeApi({
      'samples.classifyOptions': () => options,
      'samples.classification': (i: { variant: string }) => (i.variant === 'int8' ? result('int8') : null),
      'samples.setClassifyOptions': () => ({ ...options, variant: 'float32' }),
    });
    const c = new SampleClassification(api, 's1');
    await c.load();
    c.blockIndex = 1;
    await c.choose({ variant: 'float32' });
    expect(calls.find((x) => x.method === 'samples.setClassifyOptions')!.input).toEqual({ variant: 'float32' });
    expect(c.result).toBeNull();
    await c.choose({ variant: 'int8' });
    expect(c.result?.variant).toBe('int8');
  });

  it('keeps the picked learn block across a new result, and clears the window focus', async () => {
    const { api } = fakeApi({ 'samples.classifyOptions': () => options, 'samples.classification': () => result('int8'), 'samples.classify': () => result('int8', '2025-05-01T13:00:00.000Z') });
    const c = new SampleClassification(api, 's1');
    await c.load();
    c.blockIndex = 1;
    c.focused = 2;
    await c.classify();
    expect(c.block?.id).toBe(8);
    expect(c.result?.classifiedAt).toBe('2025-05-01T13:00:00.000Z');
    expect(c.focused).toBeNull();
  });

  it('follows progress (the wait before the next request), and a result made after the upload while open', async () => {
    let kept: Classification | null = null;
    const { api, emit } = fakeApi({ 'samples.classifyOptions': () => options, 'samples.classification': () => kept });
    const c = new SampleClassification(api, 's1');
    const off = c.subscribe();
    await c.load();
    const s = (o: Partial<ClassifyState>): ClassifyState => ({ id: 's1', auto: true, state: 'waiting', impulseId: null, variant: 'int8', attempt: 1, retryInMs: 4000, message: null, digest: null, error: null, ...o });
    const before = Date.now();
    emit('samples.classifyState', s({ id: 'other' }));
    expect(c.progress).toBeNull();
    emit('samples.classifyState', s({}));
    expect(c.retryAt).toBeGreaterThanOrEqual(before + 4000);
    kept = result('int8');
    emit('samples.classifyState', s({ state: 'done', retryInMs: null }));
    await vi.waitFor(() => expect(c.result).not.toBeNull());
    expect(c.retryAt).toBeNull();
    off();
  });

  it('says a failure in the core\'s words with its reason, and a cancel as a notice, not an error', async () => {
    let fail = new ApiError({ code: 'Unavailable', message: 'Project 1 has no trained impulse yet. Design and train an impulse on the platform, then classify again.', details: { reason: 'no-impulse', platformMessage: 'x' } });
    const { api } = fakeApi({ 'samples.classifyOptions': () => options, 'samples.classification': () => null, 'samples.classify': () => { throw fail; } });
    const c = new SampleClassification(api, 's1');
    await c.load();
    await c.classify();
    expect(c.failure).toEqual({ message: fail.message, reason: 'no-impulse' });
    expect(c.running).toBe(false);
    fail = new ApiError({ code: 'Cancelled', message: 'Classifying "x" was cancelled; nothing was kept.', details: { reason: 'cancelled', platformMessage: null } });
    await c.classify();
    expect(c.failure).toBeNull();
    expect(c.notice).toMatch(/^Cancelled; nothing was kept/);
  });
});

describe('the "model says" column', () => {
  it('asks for rows as they appear and for rows the index says changed, never for rows not shown', async () => {
    const digest = (id: string, text: string): ClassificationDigest => ({ id, impulseId: null, variant: 'int8', local: null, source: 'the platform, default impulse, int8', classifiedAt: 'x', warning: null, text, blocks: [] });
    let texts: Record<string, string> = { a: 'wave: 2 of 2 windows' };
    const { api, calls } = fakeApi({ 'samples.modelSays': (i: { ids: string[] }) => ({ results: i.ids.flatMap((id) => (texts[id] ? [digest(id, texts[id])] : [])) }) });
    let changed: ((c: SampleChange) => void) | null = null;
    const index = { onChange: (fn: (c: SampleChange) => void) => ((changed = fn), () => (changed = null)) } as unknown as SampleIndex;
    const m = new ModelSays(api, index);
    const off = m.subscribe();
    m.show(['a', 'b']);
    await vi.waitFor(() => expect(m.get('a')?.text).toBe('wave: 2 of 2 windows'));
    expect(m.get('b')).toBeUndefined();
    m.show(['a', 'b', 'c']);
    texts = { ...texts, b: 'idle: 1 of 1 window' };
    changed!(['b', 'z']);
    await vi.waitFor(() => expect(m.get('b')?.text).toBe('idle: 1 of 1 window'));
    expect(calls.map((x) => x.input)).toEqual([{ ids: ['a', 'b'] }, { ids: ['c'] }, { ids: ['b'] }]);
    m.show(['c']);
    expect(m.get('a')).toBeUndefined();
    changed!(null);
    expect(calls.at(-1)!.input).toEqual({ ids: ['c'] });
    off();
  });
});
