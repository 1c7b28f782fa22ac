// models.test through the core's contract (issue 44 in the app), with the real model worker and
// test exports whose answers are known window by window (the same models and samples as
// cli-model-test.test.ts, so the figures below are the CLI's, worked out there by hand): the
// figures and matrix, the unfit samples with their reasons, the results kept and a second test
// reusing them all, two models' fixed and broken samples, and a cancel with its progress events.
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JobProgress, ModelTestResult, Sample } from '../../src-main/core/contract/contract.js';
import { startCore, useCleanups } from '../support/core-harness.js';
import { encodeCbor, sensorDoc } from '../support/ingestion-server/fixtures.js';
import { PRESETS, rowsWithEnergies, writeTestModel, type TestModelOptions } from '../support/models/test-model.mjs';
import { useModelSpawner } from '../support/models/worker.js';
import { useTempDir } from '../support/temp-dir.js';

const A: TestModelOptions = { ...PRESETS.gestureNew, labels: ['idle', 'wave', 'shake'], rule: { axis: 0, levels: [2, 6] } };
const B: TestModelOptions = { ...A, rule: { axis: 0, levels: [3.5, 7] } };
const cleanups = useCleanups();
const spawn = useModelSpawner();
const root = useTempDir('cd-model-test-app-', { keep: true });
let n = 0;

async function start() {
  const dataDir = join(await mkdtemp(join(root(), 'core-')), 'data');
  const app = await startCore(cleanups, { dataDir, serial: null, modelWorker: spawn() });
  const addModel = async (name: string, opts: TestModelOptions) => {
    const { dir } = await writeTestModel(join(root(), `export-${n++}`), opts);
    await app.call('models.add', { path: dir, name });
  };
  const add = (name: string, label: string, rows: number[][], o: { intervalMs?: number; category?: 'testing' | 'training' } = {}) =>
    app.call<Sample>('samples.addFile', { name: `${name}.cbor`, bytes: new Uint8Array(encodeCbor(sensorDoc(rows, o.intervalMs ?? 16))), category: o.category ?? 'testing', label });
  return { ...app, addModel, add };
}

const rows = (energies: number[], axes = 3) => rowsWithEnergies(A, energies, axes);

describe('models.test', () => {
  it('tests a model on the samples a filter matches: figures, matrix, unfit with reasons; kept and reused; two models fixed and broken', async () => {
    const app = await start();
    await app.addModel('a', A);
    await app.addModel('b', B);
    const ids: Record<string, string> = {};
    for (const [k, label, r] of [
      ['s1', 'idle', rows([0.5, 0.5, 3])], ['s2', 'idle', rows([3, 3])], ['s3', 'wave', rows([3, 4, 0.5])], ['s4', 'wave', rows([3, 0.5])],
      ['s5', 'wave', rows([2.05, 2.05, 3])], ['s6', 'shake', rows([8, 8])], ['s7', 'shake', rows([4])], ['u1', 'jump', rows([3])], ['u3', 'wave', rows([3, 3], 2)],
    ] as const) ids[k] = (await app.add(k, label, r as number[][])).id;
    ids['t1'] = (await app.add('t1', 'idle', rows([0.5]), { category: 'training' })).id;

    const filter = { categories: ['testing' as const] };
    const r = await app.call<ModelTestResult>('models.test', { jobId: 'one', models: ['a'], filter, strideMs: 2000 });
    expect(r.matched).toBe(9);
    expect(r.models).toEqual([{
      model: 'a', regression: false, labels: ['idle', 'wave', 'shake'], windowMs: 2000, strideMs: 2000, classified: 7, reused: 0,
      accuracy: 0.4286, uncertain: 2, mae: null, rmse: null, anomaly: null,
      perLabel: {
        idle: { precision: 1, recall: 0.5, f1: 0.6667, support: 2 },
        wave: { precision: 0.3333, recall: 0.3333, f1: 0.3333, support: 3 },
        shake: { precision: 1, recall: 0.5, f1: 0.6667, support: 2 },
      },
      confusion: {
        idle: { idle: 1, wave: 1, shake: 0, uncertain: 0 },
        wave: { idle: 0, wave: 1, shake: 0, uncertain: 2 },
        shake: { idle: 0, wave: 1, shake: 1, uncertain: 0 },
      },
    }]);
    expect(r.samples.map((s) => [s.name, s.label, s.predicted[0], s.correct[0]])).toEqual([
      ['s1.cbor', 'idle', 'idle', true], ['s2.cbor', 'idle', 'wave', false], ['s3.cbor', 'wave', 'wave', true], ['s4.cbor', 'wave', 'uncertain', false],
      ['s5.cbor', 'wave', 'uncertain', false], ['s6.cbor', 'shake', 'shake', true], ['s7.cbor', 'shake', 'wave', false],
    ]);
    expect(r.unfit).toEqual([
      { id: ids['u1'], name: 'u1.cbor', reason: 'label "jump" is not one of model "a"\'s labels (idle, wave, shake)' },
      { id: ids['u3'], name: 'u3.cbor', reason: '2 axes, where model "a" takes 3' },
    ]);
    expect(r.fixed).toEqual([]);
    // Progress over the 9 samples, ending done.
    const progress = app.events.filter(([e, p]) => e === 'samples.progress' && (p as JobProgress).jobId === 'one').map(([, p]) => p as JobProgress);
    expect(progress.at(-1)).toEqual({ jobId: 'one', op: 'test', done: 9, total: 9, state: 'done' });

    // Kept as local classifications: "Model says" reads them, and "the model disagrees with the label" finds the ones it got wrong.
    const says = await app.call<{ results: Array<{ id: string; source: string; text: string }> }>('samples.modelSays', { ids: [ids['s2']!] });
    expect(says.results).toEqual([expect.objectContaining({ id: ids['s2'], source: 'on this computer: a', text: 'idle: 0 of 2 windows; 2 windows say wave' })]);
    const disagrees = await app.call<{ samples: Sample[] }>('samples.query', { filter: { ...filter, modelDisagrees: true } });
    const disagreeing = disagrees.samples.map((s) => s.name);
    expect(disagreeing).toEqual(expect.arrayContaining(['s2.cbor', 's7.cbor']));
    for (const right of ['s1.cbor', 's3.cbor', 's6.cbor']) expect(disagreeing).not.toContain(right);

    // The same test again classifies nothing: all 7 reused, the same figures.
    const again = await app.call<ModelTestResult>('models.test', { jobId: 'two', models: ['a'], filter, strideMs: 2000 });
    expect(again.models[0]).toMatchObject({ classified: 0, reused: 7 });
    expect({ ...again.models[0], classified: 7, reused: 0 }).toEqual(r.models[0]);

    // Two models: a reused, b classified; fixed s2, broken s3.
    const both = await app.call<ModelTestResult>('models.test', { jobId: 'three', models: ['a', 'b'], filter, strideMs: 2000 });
    expect(both.models.map((m) => [m.model, m.classified, m.reused, m.accuracy])).toEqual([['a', 0, 7, 0.4286], ['b', 7, 0, 0.4286]]);
    expect(both.models[1]!.confusion).toEqual({ idle: { idle: 2, wave: 0, shake: 0 }, wave: { idle: 3, wave: 0, shake: 0 }, shake: { idle: 0, wave: 1, shake: 1 } });
    expect(both.fixed).toEqual([ids['s2']]);
    expect(both.broken).toEqual([ids['s3']]);
    expect(both.samples.find((s) => s.id === ids['s3'])).toMatchObject({ predicted: ['wave', 'idle'], correct: [true, false] });
    expect(both.unfit[0]!.reason).toBe('model "a": label "jump" is not one of model "a"\'s labels (idle, wave, shake); model "b": label "jump" is not one of model "b"\'s labels (idle, wave, shake)');

    // The same model twice, and a model that is not there, are refused before any sample.
    await expect(app.call('models.test', { jobId: 'x', models: ['a', 'a'], filter })).rejects.toMatchObject({ code: 'InvalidArguments' });
    await expect(app.call('models.test', { jobId: 'y', models: ['nope'], filter })).rejects.toMatchObject({ code: 'NotFound' });
  }, 60_000);

  it('is cancelled by samples.cancel: the samples finished keep their results, the next test reuses them', async () => {
    const app = await start();
    await app.addModel('slow', { ...A, faults: { slowMs: 100 } });
    for (let i = 0; i < 6; i++) await app.add(`w${i}`, 'wave', rows([3, 3, 3, 3]));
    const filter = { labels: ['wave'] };
    const run = app.call<ModelTestResult>('models.test', { jobId: 'slow-1', models: ['slow'], filter, strideMs: 500, workers: 1 });
    const progressed = () => app.events.some(([e, p]) => e === 'samples.progress' && (p as JobProgress).jobId === 'slow-1' && (p as JobProgress).done >= 1);
    for (let i = 0; i < 200 && !progressed(); i++) await new Promise((r) => setTimeout(r, 50));
    expect(await app.call('samples.cancel', { jobId: 'slow-1' })).toEqual({ cancelled: true });
    await expect(run).rejects.toMatchObject({ code: 'Cancelled', message: expect.stringMatching(/^The test of model "slow" was stopped after [1-5] of 6 samples/) });
    const last = app.events.filter(([e, p]) => e === 'samples.progress' && (p as JobProgress).jobId === 'slow-1').at(-1)![1] as JobProgress;
    expect(last.state).toBe('cancelled');
    const next = await app.call<ModelTestResult>('models.test', { jobId: 'slow-2', models: ['slow'], filter, strideMs: 500, workers: 1 });
    expect(next.models[0]!.reused).toBeGreaterThanOrEqual(1);
    expect(next.models[0]!.reused + next.models[0]!.classified).toBe(6);
  }, 60_000);
});
