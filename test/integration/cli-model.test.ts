// `capture-desk model add/list/info/remove` through the built CLI (npm test builds it first), on
// exports written by the test model kit: the JSON it prints, its exit codes, the sentence for each
// bad input, and a data folder with nothing half-added in it afterwards.
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { PRESETS, writeTestModel, zipTestModel, type TestModelOptions } from '../support/models/test-model.mjs';
import { useTempDir } from '../support/temp-dir.js';

const root = useTempDir('cd-cli-model-');
let n = 0;

const dataDir = async () => {
  const d = join(root(), `data-${n++}`);
  await mkdir(d);
  return d;
};
const exportOf = async (opts: TestModelOptions) => (await writeTestModel(join(root(), `export-${n++}`), opts)).dir;
const model = (args: string[], data: string) => runCli(['model', ...args, '--data-dir', data]);
const jsonLines = (out: string) => out.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>);
const modelsDir = async (data: string) => (await readdir(join(data, 'models')).catch(() => [] as string[])).sort();

describe('capture-desk model add / list / info / remove', () => {
  it('adds a newer build from its zip and describes it in JSON; list, info and remove agree', async () => {
    const data = await dataDir();
    const zip = await zipTestModel(await exportOf(PRESETS.gestureNew), join(root(), 'gestures-v3.zip'), { extra: { 'run-impulse.js': '// example\n' } });
    const add = await model(['add', zip, '--json'], data);
    expect(add.code, add.stderr).toBe(0);
    const [m] = jsonLines(add.stdout);
    expect(m).toMatchObject({
      name: 'gestures-v3', status: 'ready', problem: null, source: zip,
      sensor: 'accelerometer', sensor_code: 2, frequency_hz: 62.5, window_ms: 2000, frame_sample_count: 125,
      axes: 3, axes_from: 'model', floats_per_window: 375, labels: ['idle', 'wave'], has_anomaly: false,
      model_type: 'classification', init: true, continuous: true, slice_floats: 93,
      project: { id: 424242, owner: 'Capture Desk test kit', name: 'test model (idle, wave)', deployVersion: 7 },
      files: { js: { name: 'edge-impulse-standalone.js' }, wasm: { name: 'edge-impulse-standalone.wasm', bytes: expect.any(Number) } },
    });
    expect(m!.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(m!.files.js.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(Number.isNaN(Date.parse(m!.added_at))).toBe(false);
    expect(m!.start_ms).toBeGreaterThanOrEqual(0);
    expect(m!.classify_ms).toBeGreaterThanOrEqual(0);
    expect(await modelsDir(data)).toEqual(['gestures-v3']);
    expect((await readdir(join(data, 'models', 'gestures-v3'))).sort()).toEqual(['edge-impulse-standalone.js', 'edge-impulse-standalone.wasm', 'model.json', 'package.json']);

    // An older build from its folder, with its axes given; another without (kept as unknown).
    const old = await exportOf(PRESETS.gestureOld);
    const given = await model(['add', old, '--name', 'old3', '--axes', '3', '--json'], data);
    expect(given.code, given.stderr).toBe(0);
    expect(jsonLines(given.stdout)[0]).toMatchObject({ name: 'old3', axes: 3, axes_from: 'given', floats_per_window: 375, init: false, continuous: false, model_type: null, slice_floats: null, project: null });
    const unknown = await model(['add', join(old, 'edge-impulse-standalone.js'), '--name', 'old'], data);
    expect(unknown.code, unknown.stderr).toBe(0);
    expect(unknown.stdout).toMatch(/^Added model "old"\.\n/);
    // The log is for --verbose: a person reads the progress line alone.
    expect(unknown.stderr).toMatch(/^Starting the model from .*…\n$/);
    const verbose = await model(['remove', 'old3', '--verbose'], data);
    expect(verbose.code, verbose.stderr).toBe(0);
    expect(jsonLines(verbose.stderr)).toEqual([expect.objectContaining({ level: 'info', msg: 'model removed', command: 'model remove', name: 'old3' })]);
    expect((await model(['add', old, '--name', 'old3', '--axes', '3'], data)).code).toBe(0);
    expect(unknown.stdout).toMatch(/axes +unknown: this build does not say; give it with "capture-desk model set-axes old --axes N"/);
    expect(unknown.stdout).toMatch(/build +older \(no init\), continuous mode no/);

    const list = await model(['list', '--json'], data);
    expect(list.code).toBe(0);
    expect(jsonLines(list.stdout).map((x) => [x.name, x.status, x.axes])).toEqual([['gestures-v3', 'ready', 3], ['old', 'ready', null], ['old3', 'ready', 3]]);
    const text = await model(['list'], data);
    expect(text.stdout).toMatch(/^gestures-v3 +accelerometer, 62\.5 Hz, 2000 ms windows, 3 axes, labels idle, wave\n/m);
    expect(text.stdout).toMatch(/^old +accelerometer, 62\.5 Hz, 2000 ms windows, axes unknown, labels idle, wave\n/m);

    const info = await model(['info', 'gestures-v3', '--json'], data);
    expect(info.code).toBe(0);
    expect(jsonLines(info.stdout)).toEqual([m]);
    const infoText = await model(['info', 'gestures-v3'], data);
    expect(infoText.code).toBe(0);
    expect(infoText.stdout).toMatch(/^Model "gestures-v3"\n {2}sensor +accelerometer \(2\)\n {2}frequency +62\.5 Hz\n {2}window +2000 ms \(125 samples per axis\)/);
    expect(infoText.stdout).toMatch(/build +newer \(init\), continuous mode yes \(slice of 93 floats\)/);

    const removed = await model(['remove', 'old'], data);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toBe('Removed model "old".\n');
    expect(await modelsDir(data)).toEqual(['gestures-v3', 'old3']);
    const gone = await model(['info', 'old'], data);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/No model named "old"\. Added: gestures-v3, old3\./);
    const again = await model(['remove', 'old'], data);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/No model named "old"/);
  }, 60_000);

  it('lists nothing in a new data folder', async () => {
    const data = await dataDir();
    const json = await model(['list', '--json'], data);
    expect(json).toMatchObject({ code: 0, stdout: '' });
    const text = await model(['list'], data);
    expect(text).toMatchObject({ code: 0, stdout: 'No models added. Add one with: capture-desk model add EXPORT.zip\n' });
  }, 30_000);

  // Each bad input: exit 1, the sentence naming what is wrong, and nothing left in models/ but
  // the model added before it.
  const refusals: Array<[string, () => Promise<string[]>, RegExp]> = [
    ['a zip without the two files (saying what it holds)', async () => [await zipTestModel(await exportOf(PRESETS.gestureNew), join(root(), `partial-${n++}.zip`), { only: ['edge-impulse-standalone.js'], extra: { 'README.txt': 'hi', 'docs/run-impulse.js': '//' } })],
      /partial-\d+\.zip does not hold the export's two files \(edge-impulse-standalone\.js and edge-impulse-standalone\.wasm\): it holds edge-impulse-standalone\.js, README\.txt, docs\/run-impulse\.js\. Choose "WebAssembly" on the platform's deployment page/],
    ['an image model', async () => [await exportOf(PRESETS.image)], /This model finds objects in images; Capture Desk runs models on sensor and audio streams\./],
    ['a file that is not the glue', async () => {
      const d = join(root(), `notglue-${n++}`);
      await mkdir(d);
      await writeFile(join(d, 'run-impulse.js'), 'const m = require("./edge-impulse-standalone");\nconsole.log(m);\n');
      await writeFile(join(d, 'run-impulse.wasm'), Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
      return [join(d, 'run-impulse.js')];
    }, /run-impulse\.js is not the export's glue \(it does not start a WebAssembly runtime\)\. Add edge-impulse-standalone\.js/],
    ['a model that aborts on a window of zeros', async () => [await exportOf({ ...PRESETS.gestureNew, faults: { abortOnZeros: true } })], /The model aborted when it classified a window of zeros: .*log of zero power.*It cannot run here/],
    ['a model that fails on a window of zeros', async () => [await exportOf({ ...PRESETS.audioNew, faults: { resultError: -5 } })], /The model failed on a window of zeros \(run_classifier returned -5: its signal processing failed\)/],
    ['a name already used', async () => [await exportOf(PRESETS.gestureOld), '--name', 'taken', '--axes', '3'], /A model named "taken" is already added\. Choose another name \(--name on the command line\), or remove that one first \(Settings → Models, or "capture-desk model remove taken"\)\./],
    ['--axes that contradict the model', async () => [await exportOf(PRESETS.gestureNew), '--name', 'two', '--axes', '2'], /--axes 2 contradicts the model, which says itself that it takes 3 axes/],
    ['a path that is not there', async () => [join(root(), 'nowhere.zip')], /There is no file or folder at .*nowhere\.zip\. Give the export's \.zip/],
    ['a wasm that does not start within 10 s', async () => [await exportOf({ ...PRESETS.gestureNew, faults: { neverStarts: true } })], /The model's WebAssembly did not start within 10 s\. The export may be damaged/],
  ];
  it.each(refusals)('refuses %s: exit 1 with the sentence, nothing half-added', async (_what, make, message) => {
    const data = await dataDir();
    expect((await model(['add', await exportOf(PRESETS.gestureNew), '--name', 'taken'], data)).code).toBe(0);
    const args = await make();
    const r = await model(['add', ...args, '--json'], data);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
    expect(await modelsDir(data)).toEqual(['taken']);
    expect(jsonLines((await model(['list', '--json'], data)).stdout).map((x) => x.name)).toEqual(['taken']);
  }, 60_000);

  it.each([
    [[], /^capture-desk model needs a sub-command\.\n\nUsage: capture-desk model <add\|list\|info\|set-axes\|remove\|test>/, 'stderr'],
    [['frobnicate'], /^capture-desk model has no sub-command "frobnicate"\.\n/, 'stderr'],
    [['add'], /model add takes one PATH/, 'stderr'],
    [['add', 'a.zip', 'b.zip'], /model add takes one PATH/, 'stderr'],
    [['add', 'a.zip', '--axes', '0'], /--axes must be a whole number from 1 to 64; got "0"/, 'stderr'],
    [['add', 'a.zip', '--axes', 'three'], /--axes must be a whole number/, 'stderr'],
    [['info'], /model info takes one NAME/, 'stderr'],
    [['remove', 'a', 'b'], /model remove takes one NAME/, 'stderr'],
    [['list', 'extra'], /model list takes no arguments/, 'stderr'],
    [['list', '--bogus'], /Unknown option --bogus\./, 'stderr'],
  ] as Array<[string[], RegExp, 'stdout' | 'stderr']>)('exits 2 for the usage mistake %j', async (args, message, where) => {
    const data = await dataDir();
    const r = await runCli(['model', ...args, ...(args.length ? ['--data-dir', data] : [])]);
    expect(r.code).toBe(2);
    expect(r[where]).toMatch(message);
    expect(await modelsDir(data)).toEqual([]);
  }, 30_000);

  it('says when a model\'s file changed or is gone since it was added, and exits 1 for its info', async () => {
    const data = await dataDir();
    expect((await model(['add', await exportOf(PRESETS.gestureNew), '--name', 'g'], data)).code).toBe(0);
    expect((await model(['add', await exportOf(PRESETS.audioNew), '--name', 'a'], data)).code).toBe(0);
    const wasm = join(data, 'models', 'g', 'edge-impulse-standalone.wasm');
    await writeFile(wasm, Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 0]));
    await rm(join(data, 'models', 'a', 'edge-impulse-standalone.js'));

    const info = await model(['info', 'g', '--json'], data);
    expect(info.code).toBe(1);
    const [g] = jsonLines(info.stdout);
    expect(g).toMatchObject({ name: 'g', status: 'changed' });
    expect(g!.problem).toMatch(/Model "g": edge-impulse-standalone\.wasm in .* changed since it was added\. Remove the model and add the export again/);
    const text = await model(['info', 'g'], data);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/problem +Model "g": edge-impulse-standalone\.wasm in .* changed since it was added/);
    const missing = await model(['info', 'a'], data);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(/problem +Model "a": edge-impulse-standalone\.js is gone from /);

    const list = await model(['list'], data);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^a +microphone, 16000 Hz, 1000 ms windows, 1 axis, labels noise, tone {2}\[missing\]$/m);
    expect(list.stdout).toMatch(/^g +accelerometer.* {2}\[changed\]$/m);
    // Such a model is refused when it would run, with the same sentence, not crashed on.
    const live = await runCli(['classify', 'live', '--model', 'g', '--port', join(root(), 'no-such-port'), '--seconds', '1', '--data-dir', data]);
    expect(live.code).toBe(1);
    expect(live.stderr).toMatch(/Model "g": edge-impulse-standalone\.wasm in .* changed since it was added/);
    // And removed on request.
    expect((await model(['remove', 'g'], data)).code).toBe(0);
    expect((await model(['remove', 'a'], data)).code).toBe(0);
    expect(await modelsDir(data)).toEqual([]);
  }, 60_000);
});
