// Tests of the test model kit itself (test/support/models): the generated glue must behave like a
// real WebAssembly export (conventions, traps, aborts, leaks) and answer what expectedTop predicts,
// or every loader test built on it proves nothing. Glue always runs in a worker thread: aborts and
// process-wide handlers must not reach the vitest process.
// One file over 400 lines: every test here reads the same built kit (one build in beforeAll).
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PRESETS,
  type TestModelOptions,
  expectedTop,
  testModelWasm,
  windowWithEnergy,
  writeTestModel,
  zipTestModel,
} from '../support/models/test-model.mjs';

const RUNNER = new URL('../support/models/glue-runner.mjs', import.meta.url);

interface RunResult {
  started?: boolean;
  startMs?: number;
  out?: any;
  threw?: { name: string; message: string };
  error?: Error;
  exitCode: number;
}

/** Loads the glue at `js` in a fresh worker and runs `scenario` (JS body; Module, data in scope). */
function runGlue(
  js: string,
  scenario: string,
  opts: { hideFetch?: boolean; startTimeoutMs?: number; data?: unknown } = {},
): Promise<RunResult> {
  return new Promise((resolve) => {
    const worker = new Worker(RUNNER, { workerData: { js, scenario: PRELUDE + scenario, ...opts } });
    const res: RunResult = { exitCode: -1 };
    worker.on('message', (m) => {
      if (m.type === 'started') Object.assign(res, { started: m.started, startMs: m.startMs });
      if (m.type === 'done') res.out = m.out;
      if (m.type === 'threw') res.threw = { name: m.name, message: m.message };
      if (m.type !== 'started') void worker.terminate();
    });
    worker.on('error', (e) => { res.error = e; });
    worker.on('exit', (code) => { res.exitCode = code; resolve(res); });
  });
}

// Helpers every scenario can use: the careful way to call a real export.
const PRELUDE = `
const put = (w) => { const p = Module._malloc(w.length * 4); Module.HEAPF32.set(w, p >> 2); return p; };
const read = (r) => {
  const o = { result: r.result, anomaly: r.anomaly, scores: {} };
  const v = r.classification;
  for (let i = 0; i < v.size(); i++) { const e = v.get(i); o.scores[e.label] = e.value; e.delete(); }
  v.delete(); r.delete();
  return o;
};
const classify = (w) => { const p = put(w); const r = Module.run_classifier(p, w.length, false); Module._free(p); return read(r); };
const attempt = (f) => { try { return { ok: f() }; } catch (e) { return { name: e.name, message: e.message }; } };
`;

/** The label with the highest score (what a loader would show). */
function topOf(scores: Record<string, number>): string {
  return Object.entries(scores).sort((a, b) => b[1] - a[1])[0]![0];
}

let root = '';
let seq = 0;
const model = (opts: TestModelOptions) => writeTestModel(path.join(root, `m${seq++}`), opts);

beforeAll(async () => { root = await mkdtemp(path.join(os.tmpdir(), 'test-model-kit-')); });
afterAll(async () => { await rm(root, { recursive: true, force: true }); });

describe('test model kit: files', () => {
  it('builds a real wasm module exporting a 2-page growable memory', async () => {
    // The project's lib (ES2023, no DOM) has no WebAssembly types: declare the little used here.
    const wa = (globalThis as unknown as { WebAssembly: {
      validate(b: Uint8Array): boolean;
      instantiate(b: Uint8Array, i: object): Promise<{ instance: { exports: Record<string, unknown> } }>;
    } }).WebAssembly;
    const bytes = testModelWasm();
    expect(wa.validate(bytes)).toBe(true);
    const { instance } = await wa.instantiate(bytes, {});
    const memory = instance.exports.memory as { buffer: ArrayBuffer; grow(pages: number): number };
    expect(memory.buffer.byteLength).toBe(2 * 65536);
    memory.grow(1);
    expect(memory.buffer.byteLength).toBe(3 * 65536);
  });

  it('zips the export so unzip (or python zipfile) reads it back', async () => {
    const m = await model(PRESETS.gestureOld);
    const full = await zipTestModel(m.dir, path.join(root, 'zips', 'full.zip'), {
      extra: { 'run-impulse.js': '// example\n', 'README.txt': 'hello', 'sub/data.bin': new Uint8Array([0, 1, 2]) },
    });
    const only = await zipTestModel(m.dir, path.join(root, 'zips', 'only.zip'), { only: ['edge-impulse-standalone.js'] });
    const py = `import zipfile,sys
for p in sys.argv[1:]:
    z = zipfile.ZipFile(p); assert z.testzip() is None; print(p, ','.join(z.namelist()))
z = zipfile.ZipFile(sys.argv[1]); assert z.read('README.txt') == b'hello'; assert z.read('sub/data.bin') == bytes([0,1,2])`;
    const listing = execFileSync('python3', ['-c', py, full, only], { encoding: 'utf8' });
    expect(listing).toContain('edge-impulse-standalone.js,edge-impulse-standalone.wasm,run-impulse.js,README.txt,sub/data.bin');
    expect(listing).toContain(`${only} edge-impulse-standalone.js\n`);
    // unzip is a system package of the suite (.ci/system-deps.sh): a second, independent reader.
    const l = execFileSync('unzip', ['-l', full], { encoding: 'utf8' });
    expect(l).toMatch(/edge-impulse-standalone\.wasm/);
    expect(l).toMatch(/5 files/);
    execFileSync('unzip', ['-tq', full]); // throws on a CRC or structure error
  });
});

describe('test model kit: glue conventions', () => {
  it('old builds: getter-only properties without axes, labels, init, continuous or project', async () => {
    const m = await model(PRESETS.gestureOld);
    const res = await runGlue(m.js, `
      const p = Module.get_properties();
      const o = { json: JSON.stringify(p), sensor: p.sensor, frequency: p.frequency, fsc: p.frame_sample_count,
        w: p.input_width, h: p.input_height, ifc: p.input_features_count, labels: p.labels, type: p.model_type,
        init: typeof Module.init, cont: typeof Module.run_classifier_continuous, project: typeof Module.get_project,
        calledRun: Module.calledRun, sameOnRequire: require(data.js) === Module };
      p.delete();
      const r = Module.run_classifier(put(new Float32Array(375)), 375, false);
      o.resultSize = typeof r.size; o.resultJson = JSON.stringify(r);
      return o;`, { data: { js: m.js } });
    expect(res.out).toEqual({
      json: '{}', sensor: 2, frequency: 62.5, fsc: 125, w: 0, h: 0, ifc: undefined, labels: undefined, type: undefined,
      init: 'undefined', cont: 'undefined', project: 'undefined', calledRun: true, sameOnRequire: true,
      resultSize: 'undefined', resultJson: '{}',
    });
  });

  it('new builds: every property, the labels vector and the project', async () => {
    const scenario = `
      Module.init();
      const p = Module.get_properties();
      const labels = p.labels; const names = [];
      for (let i = 0; i < labels.size(); i++) names.push(labels.get(i));
      labels.delete();
      const o = { json: JSON.stringify(p), sensor: p.sensor, frequency: p.frequency, fsc: p.frame_sample_count,
        ifc: p.input_features_count, count: p.label_count, names, type: p.model_type, anomaly: p.has_anomaly,
        interval: p.interval_ms, slice: p.slice_size, w: p.input_width, h: p.input_height };
      p.delete();
      const j = Module.get_project();
      o.project = { id: j.id, owner: j.owner, name: j.name, v: j.deploy_version };
      j.delete();
      o.live = Module.__testLiveObjects;
      return o;`;
    const g = await runGlue((await model({ ...PRESETS.gestureNew, hasAnomaly: true })).js, scenario);
    expect(g.out).toMatchObject({
      json: '{}', sensor: 2, frequency: 62.5, fsc: 125, ifc: 375, count: 2, names: ['idle', 'wave'],
      type: 'classification', anomaly: true, interval: 16, slice: 93, w: 0, h: 0, live: 0,
    });
    expect(g.out.project).toEqual({ id: expect.any(Number), owner: expect.any(String), name: expect.any(String), v: expect.any(Number) });
    const img = await runGlue((await model(PRESETS.image)).js, scenario);
    expect(img.out).toMatchObject({ sensor: 3, fsc: 9216, ifc: 9216, w: 96, h: 96, type: 'object_detection', names: ['cup'] });
  });

  it('debug-build traps: listed by Object.keys, reading one aborts the runtime', async () => {
    const m = await model(PRESETS.gestureNew);
    for (const name of ['FS', 'ALLOC_STACK']) {
      const res = await runGlue(m.js, `
        const keys = Object.keys(Module);
        const got = attempt(() => Module[data.name]);
        const after = attempt(() => Module.get_properties());
        return { keys, got, after };`, { data: { name } });
      expect(res.out.keys).toEqual(expect.arrayContaining(['FS', 'ALLOC_STACK']));
      expect(res.out.got).toMatchObject({ name: 'RuntimeError', message: expect.stringContaining(`'${name}' was not exported`) });
      expect(res.out.after).toMatchObject({ name: 'RuntimeError', message: expect.stringContaining('already aborted') });
    }
  });
});

describe('test model kit: answers', () => {
  it('answers what expectedTop predicts, reading the window interleaved by sample', async () => {
    for (const opts of [PRESETS.gestureOld, PRESETS.gestureNew, { ...PRESETS.gestureNew, hasAnomaly: true }]) {
      const windows = [0.5, 1.0, 3, 10].map((e) => windowWithEnergy(opts, e));
      // Axis 0 quiet, axes 1 and 2 loud: a loader that de-interleaves wrongly would see "wave".
      const quietX = new Float32Array(375).map((_, i) => (i % 3 === 0 ? 0.1 : 40));
      windows.push(quietX);
      const m = await model(opts);
      const res = await runGlue(m.js, `
        if (Module.init) Module.init();
        const outs = data.windows.map(classify);
        // New builds also give the scores on the result itself.
        if (Module.init) {
          const p = put(data.windows[3]); const r = Module.run_classifier(p, 375, false);
          const e = r.get(1); outs.push({ viaGet: [r.size(), e.label, e.value] }); e.delete(); r.delete();
        }
        return outs;`, { data: { windows } });
      windows.forEach((w, i) => {
        const want = expectedTop(opts, w);
        expect(res.out[i]).toEqual({ result: 0, anomaly: want.anomaly ?? 0, scores: want.scores });
        expect(topOf(res.out[i].scores)).toBe(want.label);
      });
      expect(expectedTop(opts, quietX).label).toBe('idle');
      expect(expectedTop(opts, windows[3]!)).toMatchObject({ label: 'wave', confidence: 0.95 });
      if (opts.hasAnomaly) expect(res.out[3].anomaly).toBe(0.52); // max |x| = 52 (axis 2) / 100
      if (opts.generation === 'new') expect(res.out[5]).toEqual({ viaGet: [2, 'wave', 0.95] });
    }
  });

  it('gives 0.55 inside the uncertain band and scores that sum to 1', async () => {
    const three: TestModelOptions = {
      generation: 'old', frequency: 100, frameSampleCount: 10, axes: 1, labels: ['a', 'b', 'c'],
      rule: { levels: [1, 5], uncertainBand: 0.2 },
    };
    expect(expectedTop(PRESETS.gestureOld, windowWithEnergy(PRESETS.gestureOld, 1.85))).toMatchObject({ label: 'idle', confidence: 0.55 });
    expect(expectedTop(PRESETS.gestureOld, windowWithEnergy(PRESETS.gestureOld, 2.15))).toMatchObject({ label: 'wave', confidence: 0.55 });
    expect(expectedTop(PRESETS.gestureOld, windowWithEnergy(PRESETS.gestureOld, 2.25))).toMatchObject({ label: 'wave', confidence: 0.95 });
    const m = await model(three);
    const windows = [0.5, 1.1, 3, 4.5, 9].map((e) => windowWithEnergy(three, e));
    const res = await runGlue(m.js, 'return data.windows.map(classify);', { data: { windows } });
    const labels = res.out.map((o: { scores: Record<string, number> }) => topOf(o.scores));
    expect(labels).toEqual(['a', 'b', 'b', 'b', 'c']); // 4.5 < 5, but within 20 % of it
    windows.forEach((w, i) => {
      expect(res.out[i].scores).toEqual(expectedTop(three, w).scores);
      const sum = Object.values(res.out[i].scores as Record<string, number>).reduce((a, b) => a + b, 0);
      expect(sum).toBeCloseTo(1, 10);
    });
    expect(res.out[1].scores).toEqual({ a: 0.225, b: 0.55, c: 0.225 });
    expect(res.out[4].scores).toEqual({ a: 0.025, b: 0.025, c: 0.95 });
  });

  it('does not check n: reads what it is told, aborts only past the end of memory', async () => {
    const m = await model(PRESETS.gestureOld);
    const res = await runGlue(m.js, `
      const w = new Float32Array(375).fill(3); const p = put(w);
      const short = read(Module.run_classifier(p, 30, false));
      const long = read(Module.run_classifier(p, 750, false));
      const arity = attempt(() => Module.run_classifier(p, 375));
      const alive = read(Module.run_classifier(p, 375, false)).result;
      const past = attempt(() => Module.run_classifier(p, 1e8, false));
      return { short: short.result, long: long.result, arity, alive, past };`);
    expect(res.out).toMatchObject({
      short: 0, long: 0, alive: 0,
      arity: { name: 'BindingError', message: expect.stringContaining('called with 2 arguments, expected 3') },
      past: { name: 'RuntimeError', message: expect.stringContaining('memory access out of bounds') },
    });
  });
});

describe('test model kit: lifetimes and memory', () => {
  it('delete() frees; use after delete throws BindingError and kills the runtime', async () => {
    const m = await model(PRESETS.gestureNew);
    const res = await runGlue(m.js, `
      Module.init();
      const p = put(new Float32Array(375).fill(5));
      const r = Module.run_classifier(p, 375, false);
      const v = r.classification; const e = v.get(0);
      const liveBefore = Module.__testLiveObjects;
      e.delete(); v.delete(); r.delete();
      const liveAfter = Module.__testLiveObjects;
      const use = attempt(() => r.result);
      const next = attempt(() => Module.run_classifier(p, 375, false));
      return { liveBefore, liveAfter, deleted: r.isDeleted(), use, next };`);
    expect(res.out).toMatchObject({
      liveBefore: 3, liveAfter: 0, deleted: true,
      use: { name: 'BindingError', message: 'cannot call emscripten binding method ClassifierResult.result on deleted object' },
      next: { name: 'RuntimeError', message: expect.stringMatching(/^abort\(program has already aborted/) },
    });
  });

  it('20,000 calls: heap grows when results leak, stays flat when deleted', async () => {
    const m = await model(PRESETS.gestureOld);
    const scenario = `
      const w = new Float32Array(375).fill(1); const p = put(w);
      read(Module.run_classifier(p, 375, false)); // warm-up
      const before = Module.HEAPU8.length;
      for (let i = 0; i < 20000; i++) {
        const r = Module.run_classifier(p, 375, false);
        if (data.leak) r.classification.size(); else read(r);
      }
      return { before, after: Module.HEAPU8.length, live: Module.__testLiveObjects };`;
    const leak = await runGlue(m.js, scenario, { data: { leak: true } });
    const clean = await runGlue(m.js, scenario, { data: { leak: false } });
    expect(leak.out.live).toBe(40000);
    expect(leak.out.after - leak.out.before).toBeGreaterThan(9_000_000); // ~40,000 × 256 bytes
    expect(clean.out).toEqual({ before: clean.out.before, after: clean.out.before, live: 0 });
  });

  it('running out of its 128 MiB aborts the runtime', async () => {
    const m = await model(PRESETS.gestureOld);
    const res = await runGlue(m.js, 'return attempt(() => Module._malloc(200 * 1024 * 1024));');
    expect(res.out).toMatchObject({ name: 'RuntimeError', message: expect.stringContaining('Cannot enlarge memory arrays') });
  });
});

describe('test model kit: new-build modes', () => {
  it('new builds answer -1 until init()', async () => {
    const m = await model(PRESETS.audioNew);
    const res = await runGlue(m.js, `
      const w = new Float32Array(16000).fill(2000);
      const before = classify(w);
      Module.init();
      return { before, after: classify(w) };`);
    expect(res.out.before).toEqual({ result: -1, anomaly: 0, scores: { noise: 0, tone: 0 } });
    expect(res.out.after.result).toBe(0);
    expect(topOf(res.out.after.scores)).toBe('tone');
  });

  it('continuous mode classifies a rolling window fed one slice at a time', async () => {
    const opts: TestModelOptions = {
      generation: 'new', sensor: 1, frequency: 1000, frameSampleCount: 400, axes: 1,
      labels: ['noise', 'tone'], rule: { levels: [100] }, sliceSize: 100,
    };
    const quiet = new Float32Array(100).fill(10);
    const loud = new Float32Array(100).fill(500);
    const m = await model(opts);
    const res = await runGlue(m.js, `
      const feed = (s, n = s.length) => { const p = put(s); const r = Module.run_classifier_continuous(p, n, false, false); Module._free(p); return read(r); };
      const beforeInit = feed(data.quiet);
      Module.init();
      const outs = [data.quiet, data.quiet, data.quiet, data.quiet, data.loud].map((s) => feed(s));
      const wrongSize = feed(new Float32Array(50).fill(10));
      return { beforeInit, outs, wrongSize };`, { data: { quiet, loud } });
    expect(res.out.beforeInit.result).toBe(-1);
    expect(res.out.wrongSize.result).toBe(-1);
    const rolling = new Float32Array(400);
    [quiet, quiet, quiet, quiet, loud].forEach((s, i) => {
      rolling.copyWithin(0, 100);
      rolling.set(s, 300);
      expect(res.out.outs[i]).toEqual({ result: 0, anomaly: 0, scores: expectedTop(opts, rolling).scores });
    });
    expect(topOf(res.out.outs[3].scores)).toBe('noise');
    expect(topOf(res.out.outs[4].scores)).toBe('tone'); // (3 × 10 + 500) / 4 = 132.5
  });
});

describe('test model kit: start-up and faults', () => {
  it('aborts when a global fetch exists at require time', async () => {
    const m = await model(PRESETS.gestureOld);
    const res = await runGlue(m.js, 'return "unreachable";', { hideFetch: false });
    expect(res.started).not.toBe(true);
    // Like a debug build, the abort's message goes on with the stack frames (" at Error\n    at …").
    expect(res.error?.message).toMatch(/^abort\(TypeError: Failed to parse URL from .*edge-impulse-standalone\.wasm\) at Error\n {4}at /);
  });

  it('neverStarts: no onRuntimeInitialized, no bindings, malloc aborts', async () => {
    const m = await model({ ...PRESETS.gestureNew, faults: { neverStarts: true } });
    const res = await runGlue(m.js, 'return { rc: typeof Module.run_classifier, calledRun: Module.calledRun, malloc: attempt(() => Module._malloc(4)) };', { startTimeoutMs: 300 });
    expect(res.started).toBe(false);
    expect(res.out).toMatchObject({ rc: 'undefined', calledRun: undefined, malloc: { name: 'RuntimeError' } });
  });

  it('startDelayMs delays onRuntimeInitialized', async () => {
    const m = await model({ ...PRESETS.gestureOld, faults: { startDelayMs: 300 } });
    const res = await runGlue(m.js, 'return 1;');
    expect(res.started).toBe(true);
    expect(res.startMs).toBeGreaterThanOrEqual(280);
  });

  it('abortOnZeros and abortWhenAbove kill the runtime on their windows only', async () => {
    const scenario = `
      const ok = classify(new Float32Array(375).fill(1)).result;
      const bad = attempt(() => classify(data.bad));
      const after = attempt(() => classify(new Float32Array(375).fill(1)));
      return { ok, bad, after };`;
    const zeros = await runGlue((await model({ ...PRESETS.gestureOld, faults: { abortOnZeros: true } })).js, scenario,
      { data: { bad: new Float32Array(375) } });
    const poison = new Float32Array(375).fill(1);
    poison[200] = 1e6;
    const above = await runGlue((await model({ ...PRESETS.gestureOld, faults: { abortWhenAbove: 1000 } })).js, scenario,
      { data: { bad: poison } });
    for (const [res, what] of [[zeros, 'abortOnZeros'], [above, 'abortWhenAbove']] as const) {
      expect(res.out).toMatchObject({
        ok: 0,
        bad: { name: 'RuntimeError', message: expect.stringContaining(what) },
        after: { name: 'RuntimeError', message: expect.stringContaining('already aborted') },
      });
    }
  });

  it('resultError and slowMs', async () => {
    const m = await model({ ...PRESETS.gestureOld, faults: { resultError: -5, slowMs: 30 } });
    const res = await runGlue(m.js, `
      const t0 = Date.now(); const outs = [1, 2, 3].map(() => classify(new Float32Array(375).fill(5)));
      return { outs, ms: Date.now() - t0 };`);
    expect(res.out.outs).toEqual(Array(3).fill({ result: -5, anomaly: 0, scores: { idle: 0, wave: 0 } }));
    expect(res.out.ms).toBeGreaterThanOrEqual(90);
  });

  it('processHandlers: re-throwing handlers in the worker only, and they defeat a host handler', async () => {
    const mainBefore = [process.listenerCount('uncaughtException'), process.listenerCount('unhandledRejection')];
    const scenario = `
      const counts = [process.listenerCount('uncaughtException'), process.listenerCount('unhandledRejection')];
      if (data.stray) {
        process.on('unhandledRejection', () => {}); // a host that means to swallow stray rejections
        Promise.reject(new Error('stray rejection'));
        await new Promise((r) => setTimeout(r, 100));
      }
      return counts;`;
    const plain = (await model(PRESETS.gestureNew)).js;
    const hooked = (await model({ ...PRESETS.gestureNew, faults: { processHandlers: true } })).js;
    const without = await runGlue(plain, scenario, { data: {} });
    const withH = await runGlue(hooked, scenario, { data: {} });
    expect(withH.out).toEqual([without.out[0] + 1, without.out[1] + 1]);
    const survived = await runGlue(plain, scenario, { data: { stray: true } });
    expect(survived.out).toEqual(without.out);
    const killed = await runGlue(hooked, scenario, { data: { stray: true } });
    expect(killed.out).toBeUndefined();
    expect(killed.error?.message).toBe('stray rejection');
    expect([process.listenerCount('uncaughtException'), process.listenerCount('unhandledRejection')]).toEqual(mainBefore);
  });
});
