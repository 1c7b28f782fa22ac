import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BulkResult, Classification, ClassificationDigest, JobProgress, Sample, SampleFacets } from '../../src-main/core/contract/contract.js';
import { startCore, useCleanups } from '../support/core-harness.js';
import { encodeCbor, sensorDoc, wav } from '../support/ingestion-server/fixtures.js';
import { startIngestionServer } from '../support/ingestion-server/server.js';
import { expectedTop, PRESETS, rowsWithEnergies, windowWithEnergy, writeTestModel, type TestModelOptions } from '../support/models/test-model.mjs';
import { useModelSpawner } from '../support/models/worker.js';
import { useTempDir } from '../support/temp-dir.js';

// Classifying samples already in the data folder with a model added on this computer (issue 26,
// part 4), through the core's contract with the real model worker and test exports: the result is
// kept like the platform's and read by everything that reads those (the kept result, "Model says",
// its filter and facet), never-uploaded samples included; the newest result, local or the
// platform's, wins; "Classify all matching" runs as a job with progress and Cancel, and a sample
// that does not fit is left with its reason while the rest go on.

const G = PRESETS.gestureNew; // 62.5 Hz (16 ms a row), 125 rows a window (2000 ms), 3 axes; wave when mean |axis 0| >= 2
const cleanups = useCleanups();

const spawn = useModelSpawner();
const root = useTempDir('cd-local-classify-', { keep: true });

async function start(o: { platform?: boolean } = {}) {
  const srv = o.platform ? await startIngestionServer() : null;
  if (srv) cleanups.push(() => srv.close());
  const dataDir = join(await mkdtemp(join(root(), 'core-')), 'data');
  const platform = srv ? { emulator: srv, settings: { qualityHold: 'off' }, apiKey: 'ei_test_key' } : {};
  const { call, events } = await startCore(cleanups, { dataDir, serial: null, modelWorker: spawn(), ...platform });
  const progress = (jobId: string) => events.filter(([n, p]) => n === 'samples.progress' && (p as JobProgress).jobId === jobId).map(([, p]) => p as JobProgress);
  return { call, events, progress, srv };
}

let models = 0;
async function addModel(app: Awaited<ReturnType<typeof start>>, name: string, opts: TestModelOptions = G) {
  const { dir } = await writeTestModel(join(root(), `export-${models++}`), opts);
  return app.call<{ name: string; hash: string }>('models.add', { path: dir, name });
}

/** Rows (3 axes) made of one model window per energy, in order: window k is windowWithEnergy(energies[k]). */
const rowsOf = (energies: number[]) => rowsWithEnergies(G, energies);

/** The window of `rows` (same rate as the model) starting at startMs, interleaved as the model reads it. */
function windowAt(rows: number[][], startMs: number): Float32Array {
  const first = Math.round(startMs / 16);
  return Float32Array.from(rows.slice(first, first + G.frameSampleCount).flat());
}

async function addSample(app: Awaited<ReturnType<typeof start>>, name: string, label: string | null, rows: number[][], intervalMs = 16, queue = false) {
  return app.call<Sample>('samples.addFile', { name: `${name}.cbor`, bytes: new Uint8Array(encodeCbor(sensorDoc(rows, intervalMs))), category: 'testing', label, queue });
}

describe('samples.classifyLocal', () => {
  it('classifies a never-uploaded sample window by window, keeps it, and "Model says", its filter and facet show it (no platform settings)', async () => {
    const app = await start();
    const model = await addModel(app, 'gestures');
    const energies = [0.5, 3, 1, 5];
    const rows = rowsOf(energies);
    const s = await addSample(app, 'take', 'idle', rows);
    const other = await addSample(app, 'other', 'idle', rowsOf([0.5]));
    expect(s).toMatchObject({ state: 'local', platformSampleId: null });

    // One window per block: exactly the windows the test made, each answered as the test model says.
    const aligned = await app.call<Classification>('samples.classifyLocal', { id: s.id, model: 'gestures', strideMs: 2000 });
    expect(aligned).toMatchObject({ sampleId: s.id, platformSampleId: null, impulseId: null, variant: `local:${model.hash.slice(0, 16)}`, local: { model: 'gestures', hash: model.hash, threshold: 0.6 }, windowSizeMs: 2000, windowIncreaseMs: 2000, lengthMs: 8000 });
    const w = aligned.blocks[0]!.windows;
    expect(w.map((x) => [x.startMs, x.endMs])).toEqual([[0, 2000], [2000, 4000], [4000, 6000], [6000, 8000]]);
    expect(w.map((x) => ({ label: x.label, confidence: x.confidence, scores: x.scores }))).toEqual(
      energies.map((e) => {
        const t = expectedTop(G, windowWithEnergy(G, e));
        return { label: t.label, confidence: t.confidence, scores: t.scores };
      }),
    );
    expect(w.map((x) => x.label)).toEqual(['idle', 'wave', 'idle', 'wave']);

    // The default stride, a quarter window: windows straddle the blocks, each read from the sample's own rows.
    const c = await app.call<Classification>('samples.classifyLocal', { id: s.id, model: 'gestures', threshold: 0.9 });
    expect(c.windowIncreaseMs).toBe(500);
    const windows = c.blocks[0]!.windows;
    expect(windows).toHaveLength(13);
    for (const [i, x] of windows.entries()) {
      const t = expectedTop(G, windowAt(rows, i * 500));
      expect([x.startMs, x.endMs, x.label, x.confidence, x.scores], `window ${i}`).toEqual([i * 500, i * 500 + 2000, t.label, t.confidence, t.scores]);
      expect(x.uncertain).toBe(t.confidence < 0.9);
    }
    expect(windows.some((x) => x.uncertain)).toBe(true); // mixed windows near the rule's level answer 0.55
    expect(c.blocks[0]!.summary.expected).toBe('idle');

    // Kept: read back without classifying, by model name; the newest (the second) is the one kept.
    expect(await app.call('samples.classification', { id: s.id, model: 'gestures' })).toEqual(c);
    expect(await app.call('samples.classification', { id: s.id, model: 'other-model' })).toBeNull();
    expect(await app.call('samples.classification', { id: s.id })).toBeNull(); // the platform's: none
    const { results } = await app.call<{ results: ClassificationDigest[] }>('samples.modelSays', { ids: [s.id, other.id] });
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ id: s.id, source: 'on this computer: gestures', local: { model: 'gestures' }, variant: c.variant, text: c.blocks[0]!.summary.text });
    const says = c.blocks[0]!.summary.byLabel;
    const top = Object.keys(says).sort((a, b) => says[b]! - says[a]! || G.labels.indexOf(a) - G.labels.indexOf(b))[0]!;
    expect(says).toEqual({ idle: windows.filter((x) => x.label === 'idle').length, wave: windows.filter((x) => x.label === 'wave').length });
    const found = await app.call<{ samples: Sample[] }>('samples.query', { filter: { modelSays: [top] } });
    expect(found.samples.map((x) => x.id)).toEqual([s.id]);
    const facets = await app.call<SampleFacets>('samples.facets');
    expect(facets.modelSays).toEqual([{ label: top, count: 1 }]);
    expect(facets.classified).toBe(1);
    expect((await app.call<{ samples: Sample[] }>('samples.query', { filter: { modelDisagrees: true } })).samples.map((x) => x.id)).toEqual(top === 'idle' ? [] : [s.id]);
    // The sample itself never changes, and it was announced so tables refetch.
    expect((await app.call<{ samples: Sample[] }>('samples.list', { ids: [s.id] })).samples[0]).toMatchObject({ state: 'local', label: 'idle', platformSampleId: null });
    expect(app.events.some(([n, p]) => n === 'samples.changed' && (p as { ids: string[] }).ids.includes(s.id))).toBe(true);
  });

  it('refuses with a sentence: a sample shorter than a window, another axis count or rate, a model not added; nothing is kept', async () => {
    const app = await start();
    await addModel(app, 'gestures');
    const short = await addSample(app, 'short', 'idle', rowsOf([3]).slice(0, 100));
    const twoAxes = await addSample(app, 'two-axes', 'idle', rowsOf([3]).map((r) => r.slice(0, 2)));
    const slow = await addSample(app, 'slow', 'idle', rowsOf([3, 3]), 100);
    const audio = await app.call<Sample>('samples.addFile', { name: 'hum.wav', bytes: new Uint8Array(wav(3000)), category: 'testing', label: 'idle', queue: false });
    const refusal = async (input: object) => {
      try {
        await app.call('samples.classifyLocal', input);
      } catch (err) {
        return err as Error & { code: string; details?: { reason?: string } };
      }
      throw new Error('not refused');
    };
    const e1 = await refusal({ id: short.id, model: 'gestures' });
    expect(e1).toMatchObject({ code: 'InvalidArguments', details: { reason: 'too-short' } });
    expect(e1.message).toBe('"short.cbor" is 1600 ms long, shorter than one window of model "gestures" (2000 ms): nothing to classify.');
    const e2 = await refusal({ id: twoAxes.id, model: 'gestures' });
    expect(e2).toMatchObject({ code: 'InvalidArguments', details: { reason: 'misfit', axes: 2 } });
    expect(e2.message).toMatch(/^Model "gestures" takes 3 axes; "two-axes\.cbor" gives 2 \(s0, s1\)/);
    const e3 = await refusal({ id: slow.id, model: 'gestures' });
    expect(e3).toMatchObject({ code: 'InvalidArguments', details: { reason: 'misfit', axes: 3, rateHz: 10 } });
    expect(e3.message).toMatch(/"slow\.cbor" gives 10 Hz; model "gestures" needs 62\.5 Hz/);
    const e4 = await refusal({ id: audio.id, model: 'gestures' });
    expect(e4.message).toMatch(/takes 3 axes; "hum\.wav" gives 1 \(audio\)/);
    const e5 = await refusal({ id: short.id, model: 'nope' });
    expect(e5).toMatchObject({ code: 'NotFound' });
    expect(e5.message).toBe('No model named "nope". Added: gestures.');
    expect((await refusal({ id: 'no-such-sample', model: 'gestures' })).code).toBe('NotFound');
    expect((await app.call<SampleFacets>('samples.facets')).classified).toBe(0);
  });

  it('the newest result wins between the platform\'s and a local one, in "Model says" and its filter', async () => {
    const app = await start({ platform: true });
    await addModel(app, 'gestures');
    const s = await addSample(app, 'up', 'wave', rowsOf([12, 12, 12]), 16, true);
    await expect.poll(async () => (await app.call<{ samples: Sample[] }>('samples.list', { ids: [s.id] })).samples[0]!.state, { timeout: 15_000 }).toBe('uploaded');
    const platform = await app.call<Classification>('samples.classify', { id: s.id });
    const platformSays = platform.blocks[0]!.windows[0]!.label!;
    // The emulated impulse reads the RMS about the mean over all axes (12/√3 here): shake; the local model: wave.
    expect(platformSays).toBe('shake');
    const says = async () => (await app.call<{ results: ClassificationDigest[] }>('samples.modelSays', { ids: [s.id] })).results[0]!;
    const filtered = async (label: string) => (await app.call<{ total: number }>('samples.query', { filter: { modelSays: [label] } })).total;
    expect(await says()).toMatchObject({ source: 'the platform, default impulse, int8', local: null });
    expect([await filtered('shake'), await filtered('wave')]).toEqual([1, 0]);

    await new Promise((r) => setTimeout(r, 5)); // a later classified_at
    await app.call('samples.classifyLocal', { id: s.id, model: 'gestures' });
    expect(await says()).toMatchObject({ source: 'on this computer: gestures' });
    expect([await filtered('shake'), await filtered('wave')]).toEqual([0, 1]);
    expect((await app.call<SampleFacets>('samples.facets')).modelSays).toEqual([{ label: 'wave', count: 1 }]);
    // Both stay kept, each read back by what made it.
    expect((await app.call<Classification>('samples.classification', { id: s.id, variant: 'int8' }))?.local ?? null).toBeNull();
    expect((await app.call<Classification>('samples.classification', { id: s.id, model: 'gestures' }))?.local?.model).toBe('gestures');

    await new Promise((r) => setTimeout(r, 5));
    await app.call('samples.classify', { id: s.id, variant: 'float32' });
    expect(await says()).toMatchObject({ source: 'the platform, default impulse, float32' });
    expect([await filtered('shake'), await filtered('wave')]).toEqual([1, 0]);
  });
});

describe('samples.bulk classify: all matching, with a local model', () => {
  it('says beforehand what stays and why, classifies the rest one at a time with progress, and leaves unfit samples with their reason', async () => {
    const app = await start();
    await addModel(app, 'gestures');
    const good = [await addSample(app, 'a', 'wave', rowsOf([3, 3])), await addSample(app, 'b', 'idle', rowsOf([0.5, 0.5])), await addSample(app, 'c', 'wave', rowsOf([0.5, 0.5, 4]))];
    const short = await addSample(app, 'short', 'wave', rowsOf([3]).slice(0, 60));
    const twoAxes = await addSample(app, 'two', 'wave', rowsOf([3, 3]).map((r) => r.slice(0, 2)));
    const audio = await app.call<Sample>('samples.addFile', { name: 'hum.wav', bytes: new Uint8Array(wav(2500)), category: 'testing', label: 'wave', queue: false });
    const png = await app.call<Sample>('samples.addFile', { name: 'cup.png', bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), category: 'testing', label: 'wave', queue: false });
    void png;
    const filter = { categories: ['testing'] };

    const dry = await app.call<BulkResult>('samples.bulk', { filter, action: { type: 'classify', jobId: 'dry', model: 'gestures' }, dryRun: true });
    expect(dry).toEqual({
      matched: 7, changed: 5, export: null,
      unchanged: [
        { count: 1, code: 'misfit', reason: 'not sensor or audio data (images, video, other files): a model classifies series of readings' },
        { count: 1, code: 'too-short', reason: 'shorter than one window of model "gestures" (2000 ms)' },
      ],
    });
    expect(app.progress('dry')).toEqual([]); // a dry run starts no job

    const r = await app.call<BulkResult>('samples.bulk', { filter, action: { type: 'classify', jobId: 'job-1', model: 'gestures', strideMs: 1000 }, expectTotal: 7 });
    expect(r.matched).toBe(7);
    expect(r.changed).toBe(3);
    expect(r.unchanged).toEqual(expect.arrayContaining([
      { count: 1, code: 'misfit', reason: 'not sensor or audio data (images, video, other files): a model classifies series of readings' },
      { count: 1, code: 'too-short', reason: 'shorter than one window of model "gestures" (2000 ms)' },
      { count: 1, code: 'misfit', reason: 'with 2 axes, where model "gestures" takes 3' },
      { count: 1, code: 'misfit', reason: 'with 1 axis, where model "gestures" takes 3' },
    ]));
    expect(r.unchanged).toHaveLength(4);
    const p = app.progress('job-1');
    expect(p[0]).toMatchObject({ op: 'classify', state: 'running' });
    expect(p.at(-1)).toEqual({ jobId: 'job-1', op: 'classify', done: 5, total: 5, state: 'done' });

    const { results } = await app.call<{ results: ClassificationDigest[] }>('samples.modelSays', { ids: [...good, short, twoAxes, audio].map((s) => s.id) });
    expect(results.map((d) => d.id).sort()).toEqual(good.map((s) => s.id).sort());
    for (const d of results) expect(d.source).toBe('on this computer: gestures');
    const kept = await app.call<Classification>('samples.classification', { id: good[2]!.id, model: 'gestures' });
    expect(kept.windowIncreaseMs).toBe(1000);
    const cRows = rowsOf([0.5, 0.5, 4]);
    expect(kept.blocks[0]!.windows.map((x) => x.label)).toEqual([0, 1000, 2000, 3000, 4000].map((ms) => expectedTop(G, windowAt(cRows, ms)).label));
    expect(kept.blocks[0]!.windows.map((x) => x.label)).toEqual(['idle', 'idle', 'idle', 'wave', 'wave']);
    // "The model disagrees with the label", offline: c is labelled wave and mostly said idle; a and b agree.
    const disagree = await app.call<{ samples: Sample[] }>('samples.query', { filter: { modelDisagrees: true } });
    expect(disagree.samples.map((x) => x.name).sort()).toEqual(['c.cbor']);
  });

  it('stops on Cancel between windows; the samples finished keep their results, the rest have none', async () => {
    const app = await start();
    await addModel(app, 'slow', { ...G, faults: { slowMs: 40 } });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await addSample(app, `s${i}`, 'wave', rowsOf([3, 3, 3]))).id);
    const run = app.call<BulkResult>('samples.bulk', { filter: { ids }, action: { type: 'classify', jobId: 'job-c', model: 'slow', strideMs: 100, workers: 2 } });
    const outcome = run.then(() => null, (err: Error & { code: string; details?: { done: number; changed: number } }) => err);
    await expect.poll(() => app.progress('job-c').some((p) => p.done >= 1), { timeout: 20_000 }).toBe(true);
    expect(await app.call('samples.cancel', { jobId: 'job-c' })).toEqual({ cancelled: true });
    const err = await outcome;
    expect(err).not.toBeNull();
    expect(err!.code).toBe('Cancelled');
    const done = err!.details!.changed;
    expect(done).toBeGreaterThanOrEqual(1);
    expect(done).toBeLessThan(6);
    expect(err!.message).toMatch(new RegExp(`^Classifying with model "slow" was cancelled after \\d of 6 samples; the ${done} classified keep their results\\.$`));
    expect(app.progress('job-c').at(-1)!.state).toBe('cancelled');
    const { results } = await app.call<{ results: ClassificationDigest[] }>('samples.modelSays', { ids });
    expect(results).toHaveLength(done);
    // Oldest first, two at a time (two workers): those classified are among the first done + 1 added.
    expect(ids.slice(0, done + 1)).toEqual(expect.arrayContaining(results.map((d) => d.id)));
    // Nothing runs on after the cancel.
    await new Promise((r) => setTimeout(r, 500));
    expect((await app.call<{ results: ClassificationDigest[] }>('samples.modelSays', { ids })).results).toHaveLength(done);
  });

  it('refuses a model that is not added, before anything runs', async () => {
    const app = await start();
    const s = await addSample(app, 'a', 'wave', rowsOf([3]));
    await expect(app.call('samples.bulk', { filter: { ids: [s.id] }, action: { type: 'classify', jobId: 'j', model: 'none' }, dryRun: true })).rejects.toMatchObject({ code: 'NotFound' });
    expect(app.progress('j')).toEqual([]);
  });
});
