import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src-main/core/log.js';
import { ModelRegistry } from '../../src-main/core/model/model-registry.js';
import type { SpawnModelWorker } from '../../src-main/core/model/model-runner.js';
import { PRESETS, writeTestModel, zipTestModel, type TestModelOptions } from '../support/models/test-model.mjs';
import { testModelSpawner } from '../support/models/worker.js';

let root: string;
let spawn: SpawnModelWorker;
let n = 0;
const fresh = async () => {
  const data = join(root, `data-${n++}`);
  await mkdir(data);
  return new ModelRegistry(data, spawn, silentLogger);
};
const exportOf = async (opts: TestModelOptions, name = `export-${n++}`) => (await writeTestModel(join(root, name), opts)).dir;
const leftovers = async (reg: ModelRegistry) => (await readdir(reg.dir).catch(() => [] as string[])).filter((f) => f.startsWith('.'));

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cd-models-'));
  spawn = await testModelSpawner();
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('model add', () => {
  it('adds a newer build from its zip, described from what it says', async () => {
    const reg = await fresh();
    const zip = await zipTestModel(await exportOf(PRESETS.gestureNew), join(root, 'gestures-v3.zip'), { extra: { 'run-impulse.js': '// example\n' } });
    const m = await reg.add(zip);
    expect(m.name).toBe('gestures-v3');
    expect(m.status).toBe('ready');
    const d = m.description;
    expect(d).toMatchObject({ sensor: 'accelerometer', frequencyHz: 62.5, frameSampleCount: 125, windowMs: 2000, axes: 3, axesFrom: 'model', floatsPerWindow: 375, labels: ['idle', 'wave'], hasInit: true, continuous: true, modelType: 'classification' });
    expect(d.classifyMs).toBeGreaterThanOrEqual(0);
    expect(await readdir(join(reg.dir, 'gestures-v3'))).toEqual(expect.arrayContaining(['edge-impulse-standalone.js', 'edge-impulse-standalone.wasm', 'model.json']));
    expect((await reg.list()).map((x) => x.name)).toEqual(['gestures-v3']);
  });

  it('adds an older build from its folder or its .js; its axes are unknown unless given', async () => {
    const reg = await fresh();
    const dir = await exportOf(PRESETS.gestureOld);
    const unknown = await reg.add(dir, { name: 'old' });
    expect(unknown.description).toMatchObject({ axes: null, axesFrom: 'unknown', floatsPerWindow: null, hasInit: false, continuous: false, modelType: null, labels: ['idle', 'wave'] });
    const given = await reg.add(join(dir, 'edge-impulse-standalone.js'), { name: 'old3', axes: 3 });
    expect(given.description).toMatchObject({ axes: 3, axesFrom: 'given', floatsPerWindow: 375 });
    const set = await reg.setAxes('old', 3);
    expect(set.description).toMatchObject({ axes: 3, axesFrom: 'given' });
  });

  it('takes an old microphone build as one axis', async () => {
    const reg = await fresh();
    const m = await reg.add(await exportOf(PRESETS.audioOld), { name: 'kws' });
    expect(m.description).toMatchObject({ sensor: 'microphone', axes: 1, axesFrom: 'model', frequencyHz: 16000, windowMs: 1000 });
  });

  const refusals: Array<[string, () => Promise<string>, RegExp]> = [
    ['a zip without the two files', async () => zipTestModel(await exportOf(PRESETS.gestureNew), join(root, `partial-${n++}.zip`), { only: ['edge-impulse-standalone.js'], extra: { 'README.txt': 'hi' } }), /does not hold the export's two files.*it holds edge-impulse-standalone\.js, README\.txt/],
    ['an image model', async () => exportOf(PRESETS.image), /this model (finds objects in|classifies) images; Capture Desk runs models on sensor and audio streams/i],
    ['a file that is not the glue', async () => {
      const d = join(root, `notglue-${n++}`);
      await mkdir(d);
      await writeFile(join(d, 'run-impulse.js'), 'module.exports = 42;\n');
      await writeFile(join(d, 'run-impulse.wasm'), Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
      return join(d, 'run-impulse.js');
    }, /is not the export's glue/],
    ['a model that aborts on zeros', async () => exportOf({ ...PRESETS.gestureNew, faults: { abortOnZeros: true } }), /aborted when it classified a window of zeros/],
    ['a model that fails on zeros', async () => exportOf({ ...PRESETS.gestureNew, faults: { resultError: -5 } }), /failed on a window of zeros \(run_classifier returned -5: its signal processing failed\)/],
    ['a path that does not exist', async () => join(root, 'nowhere.zip'), /There is no file or folder at/],
    ['a zip that is not a zip', async () => {
      const p = join(root, `bad-${n++}.zip`);
      await writeFile(p, 'not a zip at all');
      return p;
    }, /could not be read as a zip/],
  ];
  for (const [what, make, message] of refusals) {
    it(`refuses ${what}, leaving nothing behind`, async () => {
      const reg = await fresh();
      await expect(reg.add(await make(), { name: 'm' })).rejects.toThrow(message);
      expect(await reg.list()).toEqual([]);
      expect(await leftovers(reg)).toEqual([]);
    });
  }

  it('refuses a wasm that does not start within the time allowed', async () => {
    const reg = await fresh();
    await expect(reg.add(await exportOf({ ...PRESETS.gestureNew, faults: { neverStarts: true } }), { name: 'm', startTimeoutMs: 1500 })).rejects.toThrow(/did not start within 2 s/);
    expect(await leftovers(reg)).toEqual([]);
  });

  it('refuses a name already used, and --axes that contradict the model', async () => {
    const reg = await fresh();
    const dir = await exportOf(PRESETS.gestureNew);
    await reg.add(dir, { name: 'g' });
    await expect(reg.add(dir, { name: 'g' })).rejects.toThrow(/A model named "g" is already added/);
    await expect(reg.add(dir, { name: 'h', axes: 2 })).rejects.toThrow(/--axes 2 contradicts the model, which says itself that it takes 3 axes/);
    expect((await reg.list()).map((m) => m.name)).toEqual(['g']);
  });
});

describe('models on disk later', () => {
  it('says when a file changed or is gone, and removes on request', async () => {
    const reg = await fresh();
    await reg.add(await exportOf(PRESETS.gestureNew), { name: 'a' });
    await reg.add(await exportOf(PRESETS.gestureOld), { name: 'b', axes: 3 });
    await writeFile(join(reg.dir, 'a', 'edge-impulse-standalone.wasm'), Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
    await rm(join(reg.dir, 'b', 'edge-impulse-standalone.js'));
    const [a, b] = await reg.list();
    expect(a).toMatchObject({ name: 'a', status: 'changed' });
    expect(a!.problem).toMatch(/edge-impulse-standalone\.wasm .* changed since it was added/);
    expect(b).toMatchObject({ name: 'b', status: 'missing' });
    await expect(reg.ready('b')).rejects.toThrow(/is gone/);
    await reg.remove('a');
    expect((await reg.list()).map((m) => m.name)).toEqual(['b']);
    await expect(reg.get('a')).rejects.toThrow(/No model named "a". Added: b/);
  });
});
