// The model runtime through its real parts: the test model kit's glue (the export's calling
// conventions, aborts, process-wide handlers, a slow model) loaded by the registry into the model
// worker (bundled from the sources), driven by ModelSession and LiveModel as the CLI and app do.
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src-main/core/log.js';
import { LiveModel, type LiveRows, type WindowMeta } from '../../src-main/core/model/live-model.js';
import { ModelRegistry } from '../../src-main/core/model/model-registry.js';
import { ModelRunner, type SpawnModelWorker, type WindowResult } from '../../src-main/core/model/model-runner.js';
import type { ModelVerdict } from '../../src-main/core/contract/model-schema.js';
import { ModelSession } from '../../src-main/core/model/model-session.js';
import { PRESETS, expectedTop, rowsWithEnergies, windowWithEnergy, writeTestModel, type TestModelOptions } from '../support/models/test-model.mjs';
import { classifyDecodedWith } from '../../src-main/core/model/classify-windows.js';
import { decodeSampleBytes } from '../../src-main/core/review/decoded.js';
import { testModelSpawner } from '../support/models/worker.js';

let root: string;
let spawn: SpawnModelWorker;
let n = 0;
const open: Array<ModelSession<unknown>> = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cd-model-runtime-'));
  spawn = await testModelSpawner();
}, 60_000);
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A data folder with this one model added, and a session on it. */
async function sessionOf<M = { i: number }>(opts: TestModelOptions, add: { axes?: number } = {}): Promise<{ registry: ModelRegistry; session: ModelSession<M> }> {
  const data = join(root, `data-${n++}`);
  await mkdir(data);
  const registry = new ModelRegistry(data, spawn, silentLogger);
  await registry.add((await writeTestModel(join(root, `export-${n++}`), opts)).dir, { name: 'm', ...add });
  const session = await ModelSession.open<M>(registry, 'm', spawn, silentLogger);
  open.push(session as ModelSession<unknown>);
  return { registry, session };
}

const until = async (what: string, ok: () => boolean, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};
const asScores = (r: WindowResult) => Object.fromEntries(r.scores);

describe('an abort inside the module', () => {
  it('kills only its worker: restarted once, classifying goes on; a second abort marks the model failed with the reason', async () => {
    const opts = { ...PRESETS.gestureNew, faults: { abortWhenAbove: 1000 } };
    const { registry, session } = await sessionOf(opts);
    const results: Array<{ i: number; label: string }> = [];
    const restarted: string[] = [];
    const failed: string[] = [];
    session.on({
      result: (r, meta) => results.push({ i: meta.i, label: r.scores.reduce((a, b) => (b[1] > a[1] ? b : a))[0] }),
      restarted: (reason) => restarted.push(reason),
      failed: (reason) => failed.push(reason),
    });
    const poison = () => {
      const w = windowWithEnergy(opts, 5);
      w[7] = 5000; // one value above abortWhenAbove
      return w;
    };

    session.offer(windowWithEnergy(opts, 0.5), { i: 0 });
    await until('the first result', () => results.length === 1);
    session.offer(poison(), { i: 1 });
    await until('the restart', () => restarted.length === 1);
    expect(restarted[0]).toMatch(/out of range.*abortWhenAbove/);
    expect(failed).toEqual([]);
    // It goes on classifying in the new worker.
    session.offer(windowWithEnergy(opts, 5), { i: 2 });
    await until('a result after the restart', () => results.length === 2);
    expect(results).toEqual([{ i: 0, label: 'idle' }, { i: 2, label: 'wave' }]);
    expect((await registry.get('m')).status).toBe('ready');

    session.offer(poison(), { i: 3 });
    await until('the model marked failed', () => failed.length === 1);
    expect(failed[0]).toMatch(/The model "m" stopped twice: .*out of range.*It was marked failed/);
    expect(session.failed).toBe(failed[0]);
    expect(session.lost).toBe(2);
    const [entry] = await registry.list();
    expect(entry).toMatchObject({ name: 'm', status: 'failed' });
    expect(entry!.problem).toMatch(/died twice in a row \(.*out of range.*abortWhenAbove/);
    // A failed session takes no more windows, and says so to whoever classifies offline.
    session.offer(windowWithEnergy(opts, 0.5), { i: 4 });
    await new Promise((r) => setTimeout(r, 200));
    expect(results).toHaveLength(2);
    await expect(session.classify(windowWithEnergy(opts, 0.5))).rejects.toThrow(/stopped twice/);

    // The test process is unharmed, and the model runs again next time (the mark is cleared).
    const again = await ModelSession.open(registry, 'm', spawn, silentLogger);
    open.push(again as ModelSession<unknown>);
    expect((await registry.get('m')).status).toBe('ready');
    expect(asScores(await again.classify(windowWithEnergy(opts, 0.5)))).toEqual(expectedTop(opts, windowWithEnergy(opts, 0.5)).scores);
  }, 60_000);

  it('glue that registers process-wide handlers leaves this process\'s listeners as they were', async () => {
    const listeners = () => ({ uncaughtException: process.listeners('uncaughtException'), unhandledRejection: process.listeners('unhandledRejection') });
    const before = listeners();
    const opts = { ...PRESETS.gestureNew, faults: { processHandlers: true } };
    const { session } = await sessionOf(opts);
    const w = windowWithEnergy(opts, 3);
    expect(asScores(await session.classify(w))).toEqual(expectedTop(opts, w).scores);
    expect(listeners()).toEqual(before);
    expect(before.uncaughtException.length + before.unhandledRejection.length).toBe(listeners().uncaughtException.length + listeners().unhandledRejection.length);
  }, 30_000);
});

describe('batches (samples classified offline)', () => {
  it('answers a batch of windows in order as one by one, reusing the buffer the worker hands back; an abort restarts once and retries the batch, a second marks the model failed', async () => {
    const opts = { ...PRESETS.gestureNew, faults: { abortWhenAbove: 1000 } };
    const { registry, session } = await sessionOf(opts);
    const floats = opts.frameSampleCount * opts.axes;
    const batchOf = (energies: number[]) => {
      const v = new Float32Array(floats * energies.length);
      energies.forEach((e, k) => v.set(windowWithEnergy(opts, e), k * floats));
      return v;
    };
    for (const energies of [[0.5, 5, 2.05], [5, 0.5], [3, 3, 0.5, 5]]) {
      const values = batchOf(energies);
      const got = await session.classifyBatch(values, floats, energies.length);
      expect(got.map(asScores)).toEqual(energies.map((e) => expectedTop(opts, windowWithEnergy(opts, e)).scores));
      expect(values).toEqual(batchOf(energies)); // the caller's windows are untouched
    }
    expect(session.classified).toBe(9);

    const poisoned = batchOf([0.5, 5]);
    poisoned[floats + 7] = 5000; // the second window aborts the module
    await expect(session.classifyBatch(poisoned, floats, 2)).rejects.toThrow(/The model "m" stopped twice: .*out of range/);
    expect((await registry.list())[0]).toMatchObject({ name: 'm', status: 'failed' });
  });
});

describe('whole samples read and classified in the worker (model test)', () => {
  /** A sensor sample on disk (an acquisition JSON file at the model's rate) of one window per energy, as the index would list it. */
  async function sampleOf(opts: TestModelOptions, energies: number[], name: string) {
    const values = rowsWithEnergies(opts, energies);
    const bytes = Buffer.from(JSON.stringify({
      protected: { ver: 'v1', alg: 'none' }, signature: '0',
      payload: { device_type: 'TEST', interval_ms: 1000 / opts.frequency, sensors: [{ name: 'accX', units: 'm/s2' }, { name: 'accY', units: 'm/s2' }, { name: 'accZ', units: 'm/s2' }], values },
    }));
    const path = join(root, `${name}-${n++}.json`);
    await writeFile(path, bytes);
    const sample = { id: `id-${name}`, name: `${name}.json`, kind: 'sensor', label: 'wave', sha256: createHash('sha256').update(bytes).digest('hex') } as const;
    return { sample, path, bytes };
  }

  it('gives exactly the result the core\'s own path gives; a changed or missing file is refused with what to do and the module goes on; an abort retries the sample once', async () => {
    const opts = { ...PRESETS.gestureNew, faults: { abortWhenAbove: 1000 } };
    const { registry, session } = await sessionOf(opts);
    const o = { strideMs: 1000, threshold: 0.6 };
    const { sample, path, bytes } = await sampleOf(opts, [0.5, 5, 3, 0.5], 'four');
    const inWorker = await session.classifySample({ sample, source: { path }, entry: session.entry, ...o });
    const here = await classifyDecodedWith(session.entry, (v, f, k) => session.classifyBatch(v, f, k), sample, decodeSampleBytes(sample, bytes), o);
    const windows = inWorker.blocks[0]!.windows;
    // 4 windows of 2 s each, every 1 s: 7 whole windows; the same verdicts and scores either way.
    expect(windows.map((w) => w.label)).toEqual(here.blocks[0]!.windows.map((w) => w.label));
    expect(windows.map((w) => w.scores)).toEqual(here.blocks[0]!.windows.map((w) => w.scores));
    expect(windows).toHaveLength(7);
    expect({ ...inWorker, classifiedAt: '' }).toEqual({ ...here, classifiedAt: '' });
    expect(inWorker.local).toMatchObject({ model: 'm', threshold: 0.6, sampleSha256: sample.sha256 });
    // The bytes the core still holds (a take just written) are classified the same.
    expect((await session.classifySample({ sample, source: { bytes }, entry: session.entry, ...o })).blocks[0]!.windows).toEqual(windows);
    expect(session.classified).toBe(7 + 7 + 7);

    // The sample's own problems: a CoreError with the sentence, and the same worker goes on.
    await writeFile(path, Buffer.concat([bytes, Buffer.from(' ')]));
    await expect(session.classifySample({ sample, source: { path }, entry: session.entry, ...o })).rejects.toMatchObject({ code: 'InvalidArguments', message: expect.stringMatching(/^The file of sample "four.json" changed after it was added \(.*\)\. Add it again/) });
    await expect(session.classifySample({ sample, source: { path: `${path}.gone` }, entry: session.entry, ...o })).rejects.toMatchObject({ code: 'NotFound', message: expect.stringMatching(/^The file of sample "four.json" is gone .*Restore it or delete the sample\.$/) });
    const short = await sampleOf(opts, [0.5], 'short');
    await expect(session.classifySample({ sample: short.sample, source: { path: short.path }, entry: session.entry, strideMs: 1000, threshold: 0.6 })).resolves.toMatchObject({ blocks: [{ windows: [{ index: 0 }] }] });
    const tooShort = { ...short.sample, name: 'half.json' };
    const half = Buffer.from(short.bytes.toString().replace(/"values":\[(.*)\]\}\}$/, (_m, rows: string) => `"values":[${rows.split('],[').slice(0, 60).join('],[')}]]}}`));
    await writeFile(short.path, half);
    await expect(session.classifySample({ sample: { ...tooShort, sha256: createHash('sha256').update(half).digest('hex') }, source: { path: short.path }, entry: session.entry, ...o }))
      .rejects.toMatchObject({ code: 'InvalidArguments', details: { reason: 'too-short', windowMs: 2000 } });
    expect(session.failed).toBeNull();
    expect((await registry.list())[0]).toMatchObject({ status: 'ready' });

    // A sample that aborts the module: restarted once and retried, then the model is marked failed.
    const poisoned = await sampleOf(opts, [0.5, 2000], 'poisoned');
    await expect(session.classifySample({ sample: poisoned.sample, source: { path: poisoned.path }, entry: session.entry, ...o })).rejects.toThrow(/The model "m" stopped twice: .*out of range/);
    expect((await registry.list())[0]).toMatchObject({ name: 'm', status: 'failed' });
  }, 30_000);
});

describe('a whole sample in the worker, stopped', () => {
  it('stops between two windows when its stop flag is set (Cancel of a long sample), says nothing was kept, and the module goes on', async () => {
    const opts = { ...PRESETS.gestureNew, faults: { slowMs: 40 } };
    const { session } = await sessionOf(opts);
    const energies = Array.from({ length: 30 }, (_, i) => (i % 2 ? 5 : 0.5));
    const bytes = Buffer.from(JSON.stringify({
      protected: { ver: 'v1', alg: 'none' }, signature: '0',
      payload: { device_type: 'TEST', interval_ms: 16, sensors: [{ name: 'accX', units: 'm/s2' }, { name: 'accY', units: 'm/s2' }, { name: 'accZ', units: 'm/s2' }], values: rowsWithEnergies(opts, energies) },
    }));
    const sample = { id: 'long', name: 'long.json', kind: 'sensor', label: 'wave', sha256: createHash('sha256').update(bytes).digest('hex') } as const;
    const stop = new Int32Array(new SharedArrayBuffer(4));
    // 30 windows of 40 ms each: 1.2 s whole; stopped once a few windows are in.
    const run = session.classifySample({ sample, source: { bytes }, entry: session.entry, strideMs: 2000, threshold: 0.6, stop });
    await new Promise((r) => setTimeout(r, 150));
    Atomics.store(stop, 0, 1);
    await expect(run).rejects.toMatchObject({ code: 'Cancelled', message: 'Classifying "long.json" was stopped; nothing was kept.' });
    expect(session.classified).toBe(0); // no result came back
    // The same module, not restarted, classifies the next sample whole.
    Atomics.store(stop, 0, 0);
    const whole = await session.classifySample({ sample, source: { bytes }, entry: session.entry, strideMs: 2000, threshold: 0.6, stop });
    expect(whole.blocks[0]!.windows.map((w) => w.label)).toEqual(energies.map((e) => (e > 2 ? 'wave' : 'idle')));
    expect(session.failed).toBeNull();
  }, 30_000);
});

describe('back-pressure', () => {
  it('a model slower than the windows offered skips and counts them, holding at most one waiting', async () => {
    const opts = { ...PRESETS.gestureNew, faults: { slowMs: 40 } };
    const { session } = await sessionOf(opts);
    const results: number[] = [];
    session.on({ result: (_r, meta) => results.push(meta.i) });
    // 20 windows at once: one goes in, each later one replaces the one waiting.
    for (let i = 0; i < 20; i++) session.offer(windowWithEnergy(opts, i % 4), { i });
    await until('the burst classified', () => results.length === 2);
    await new Promise((r) => setTimeout(r, 300)); // nothing else is on its way
    expect(results).toEqual([0, 19]);
    expect(session.skipped).toBe(18);

    // A steady stream every 5 ms against a model taking 40 ms per window.
    let offered = 20;
    const timer = setInterval(() => session.offer(windowWithEnergy(opts, 1), { i: offered++ }), 5);
    await until('a second of windows', () => offered >= 220);
    clearInterval(timer);
    const last = offered - 1;
    await until('the last window classified', () => results.at(-1) === last);
    await new Promise((r) => setTimeout(r, 300));
    // Every window was either classified or counted as skipped; never run out of order.
    expect(results.length + session.skipped).toBe(offered);
    expect(session.skipped).toBeGreaterThan(offered / 2);
    expect([...results].sort((a, b) => a - b)).toEqual(results);
    expect(session.classified).toBe(results.length);
  }, 60_000);
});

describe('memory', () => {
  it('stays flat over 100,000 windows: everything the module returns is freed', async () => {
    const opts = PRESETS.gestureNew;
    const { session } = await sessionOf(opts);
    const windows = [0.5, 1.5, 2.5, 4].map((e) => windowWithEnergy(opts, e));
    const answers = windows.map((w) => expectedTop(opts, w));
    const t0 = performance.now();
    let at10k = 0;
    for (let i = 0; i < 100_000; i++) {
      const r = await session.classify(windows[i % 4]!);
      if (i % 9973 === 0) expect(asScores(r)).toEqual(answers[i % 4]!.scores);
      if (i === 9_999) at10k = (await session.memory()).heapBytes;
    }
    const at100k = (await session.memory()).heapBytes;
    console.log(`100,000 windows through the worker in ${Math.round(performance.now() - t0)} ms; module heap ${at10k} B at 10k, ${at100k} B at 100k`);
    expect(at10k).toBeGreaterThan(0);
    expect(at100k).toBe(at10k);
    expect(session.classified).toBe(100_000);
  }, 120_000);
});

describe('builds', () => {
  it('old and new builds both classify exactly as the model says', async () => {
    let seed = 42;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (const opts of [PRESETS.gestureOld, PRESETS.gestureNew]) {
      const { session } = await sessionOf(opts, opts.generation === 'old' ? { axes: 3 } : {});
      expect(session.entry.description.hasInit).toBe(opts.generation === 'new');
      const cases = [0, 0.5, 1.85, 2, 2.15, 3, 10].map((e) => windowWithEnergy(opts, e));
      for (let k = 0; k < 20; k++) cases.push(Float32Array.from({ length: 375 }, () => (rand() - 0.5) * 8));
      for (const w of cases) {
        const r = await session.classify(w);
        const want = expectedTop(opts, w);
        expect(r.code).toBe(0);
        expect(asScores(r)).toEqual(want.scores);
        expect(r.scores.reduce((a, b) => (b[1] > a[1] ? b : a))[0]).toBe(want.label);
      }
    }
  }, 60_000);
});

describe('continuous mode (audio, slice by slice)', () => {
  it('gives verdicts once a whole window went in; a burst of slices costs none; a skipped slice refills the window first', async () => {
    const opts = PRESETS.audioNew;
    const { session } = await sessionOf<WindowMeta>(opts);
    const d = session.entry.description;
    expect(d).toMatchObject({ continuous: true, sliceFloats: 4000, windowMs: 1000 });
    let push: (values: Float64Array, rows: number) => void = () => {};
    const mic: LiveRows = {
      name: 'a test microphone', axisNames: ['audio'], rateHz: 16_000, audio: true,
      subscribe: (onRows) => {
        push = (v, rows) => onRows(v, rows);
        return () => {};
      },
    };
    const verdicts: ModelVerdict[] = [];
    const live = new LiveModel(session, mic, { strideMs: null, threshold: 0.6 }, { verdict: (v) => verdicts.push(v) });
    expect(live.fit).toMatchObject({ continuous: true, strideMs: 250 });
    // Slice k holds samples of mean |x| = level[k] (alternating sign); slice 10 is the one skipped,
    // loud enough that any window still holding it would say "tone".
    const level = [3000, 3000, 3000, 3000, 200, 200, 5000, 200, 200, 200, 30000, 200, 200, 200, 200, 200];
    const slice = (k: number) => Float64Array.from({ length: 4000 }, (_, i) => (i % 2 ? -level[k]! : level[k]!));
    /** Slices from..to-1 in one push (one burst from the source); waits until `classified` more came back. */
    const burst = async (from: number, to: number, classified: number) => {
      const done = session.classified;
      const rows = new Float64Array((to - from) * 4000);
      for (let k = from; k < to; k++) rows.set(slice(k), (k - from) * 4000);
      push(rows, rows.length);
      await until(`slices ${from}..${to - 1} classified`, () => session.classified === done + classified);
    };
    for (let k = 0; k < 6; k++) await burst(k, k + 1, 1);
    await burst(6, 9, 3); // 6 goes in, 7 and 8 wait: a burst within a window's worth loses nothing
    expect(session.skipped).toBe(0);
    await burst(9, 15, 5); // 9 goes in, 10-13 wait, 14 comes: the oldest waiting (10) is skipped
    expect(session.skipped).toBe(1);
    await burst(15, 16, 1);

    const concat = (ks: number[]) => {
      const w = new Float32Array(16_000);
      ks.forEach((k, j) => w.set(slice(k), j * 4000));
      return w;
    };
    // Nothing before the first full second; after the hole none until four slices in a row went in.
    expect(verdicts.map((v) => v.endMs)).toEqual([1000, 1250, 1500, 1750, 2000, 2250, 2500, 3750, 4000]);
    const heard = [[0, 1, 2, 3], [1, 2, 3, 4], [2, 3, 4, 5], [3, 4, 5, 6], [4, 5, 6, 7], [5, 6, 7, 8], [6, 7, 8, 9], [11, 12, 13, 14], [12, 13, 14, 15]];
    verdicts.forEach((v, j) => {
      const want = expectedTop(opts, concat(heard[j]!));
      expect({ label: v.label, scores: v.scores, startMs: v.startMs }, `verdict ${j}`).toEqual({ label: want.label, scores: want.scores, startMs: v.endMs - 1000 });
    });
    expect(verdicts.map((v) => v.label)).toEqual(['tone', 'tone', 'tone', 'tone', 'tone', 'tone', 'tone', 'noise', 'noise']);
    await live.stop();
  }, 60_000);
});

describe('a start nobody needs any more', () => {
  it('ends when its signal is aborted (a pool closed while warming), not at the start timeout, and its worker is gone', async () => {
    const { js } = await writeTestModel(join(root, `export-${n++}`), { ...PRESETS.gestureNew, faults: { neverStarts: true } });
    const workers: Array<{ exited: boolean }> = [];
    const watched: SpawnModelWorker = () => {
      const w = spawn();
      const seen = { exited: false };
      w.once('exit', () => void (seen.exited = true));
      workers.push(seen);
      return w;
    };
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 200);
    await expect(ModelRunner.start(js, watched, 120_000, stop.signal)).rejects.toThrow('The model worker was stopped while starting: it was no longer needed.');
    await until('the worker to exit', () => workers[0]?.exited === true);
    // Aborted before it began: no worker at all.
    await expect(ModelRunner.start(js, watched, 120_000, stop.signal)).rejects.toThrow('stopped while starting');
    expect(workers).toHaveLength(1);
  }, 30_000);
});
