// `capture-desk model test` through the built CLI (issue 44): test models from the kit whose
// answers are known window by window (energy below a level → one label, within 10 % of a level →
// confidence 0.55, else 0.95), samples with known labels imported with `samples import`, and the
// predictions, the matrix and the figures worked out by hand below; unfit samples with their
// reasons; exit codes; two models' differences; the kept results reused by a second run.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ClassificationStore } from '../../src-main/core/classify/classification-store.js';
import { silentLogger } from '../../src-main/core/log.js';
import { SampleStore } from '../../src-main/core/samples/sample-store.js';
import { runCli } from '../support/cli.js';
import { sensorDoc } from '../support/ingestion-server/fixtures.js';
import { PRESETS, rowsWithEnergies, writeTestModel, type TestModelOptions } from '../support/models/test-model.mjs';
import { useTempDir } from '../support/temp-dir.js';

const NO_PLATFORM = { CAPTURE_DESK_API_KEY: '', CAPTURE_DESK_HMAC_KEY: '' };
/** 62.5 Hz, 125 rows (2000 ms) a window, 3 axes: idle below energy 2, wave from 2, shake from 6. */
const A: TestModelOptions = { ...PRESETS.gestureNew, labels: ['idle', 'wave', 'shake'], rule: { axis: 0, levels: [2, 6] } };
/** The same data read with other levels: idle below 3.5, wave from 3.5, shake from 7. */
const B: TestModelOptions = { ...A, rule: { axis: 0, levels: [3.5, 7] } };
const root = useTempDir('cd-cli-model-test-');
const lines = (out: string) => out.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
let n = 0;

async function addModel(data: string, name: string, opts: TestModelOptions): Promise<void> {
  const { dir } = await writeTestModel(join(root(), `export-${n++}`), opts);
  const r = await runCli(['model', 'add', dir, '--name', name, '--data-dir', data], { env: NO_PLATFORM });
  expect(r.code, r.stderr).toBe(0);
}

async function importRows(data: string, name: string, label: string, rows: number[][], o: { category?: string; intervalMs?: number } = {}): Promise<string> {
  const file = join(root(), `${name}.json`);
  await writeFile(file, JSON.stringify(sensorDoc(rows, o.intervalMs ?? 16)));
  const r = await runCli(['samples', 'import', file, '--label', label, '--category', o.category ?? 'testing', '--data-dir', data, '--json'], { env: NO_PLATFORM });
  expect(r.code, r.stderr).toBe(0);
  return (lines(r.stdout)[0] as { id: string }).id;
}

const modelTest = (data: string, more: string[]) => runCli(['model', 'test', '--data-dir', data, ...more], { env: NO_PLATFORM });

/** One folder for the whole file: models "a" and "b", seven samples to count, four unfit, one for training. */
let data = '';
const ids: Record<string, string> = {};
beforeAll(async () => {
  data = join(root(), 'data');
  await mkdir(data);
  await addModel(data, 'a', A);
  await addModel(data, 'b', B);
  const rows = (energies: number[], axes = 3) => rowsWithEnergies(A, energies, axes);
  // Window by window (stride 2000 ms = one window per energy), model a: the prediction.
  ids['s1'] = await importRows(data, 's1', 'idle', rows([0.5, 0.5, 3])); // idle idle wave → idle ✓
  ids['s2'] = await importRows(data, 's2', 'idle', rows([3, 3])); // wave wave → wave ✗
  ids['s3'] = await importRows(data, 's3', 'wave', rows([3, 4, 0.5])); // wave wave idle → wave ✓
  ids['s4'] = await importRows(data, 's4', 'wave', rows([3, 0.5])); // wave idle: a tie → uncertain
  ids['s5'] = await importRows(data, 's5', 'wave', rows([2.05, 2.05, 3])); // 0.55 0.55 wave → uncertain most → uncertain
  ids['s6'] = await importRows(data, 's6', 'shake', rows([8, 8])); // shake shake → shake ✓
  ids['s7'] = await importRows(data, 's7', 'shake', rows([4])); // wave → wave ✗
  ids['u1'] = await importRows(data, 'u1', 'jump', rows([3]));
  ids['u2'] = await importRows(data, 'u2', 'wave', rows([3]).slice(0, 90));
  ids['u3'] = await importRows(data, 'u3', 'wave', rows([3, 3], 2));
  ids['u4'] = await importRows(data, 'u4', 'wave', rows([3, 3]), { intervalMs: 100 });
  ids['t1'] = await importRows(data, 't1', 'idle', rows([0.5]), { category: 'training' });
}, 120_000);

const SUMMARY_A = {
  samples: 7,
  accuracy: 0.4286, // s1, s3, s6 of 7
  uncertain: 2,
  unfit: 4,
  per_label: {
    idle: { precision: 1, recall: 0.5, f1: 0.6667, support: 2 }, // said idle once (s1, right)
    wave: { precision: 0.3333, recall: 0.3333, f1: 0.3333, support: 3 }, // said wave for s2, s3, s7; s4 s5 uncertain
    shake: { precision: 1, recall: 0.5, f1: 0.6667, support: 2 },
  },
  confusion: {
    idle: { idle: 1, wave: 1, shake: 0, uncertain: 0 },
    wave: { idle: 0, wave: 1, shake: 0, uncertain: 2 },
    shake: { idle: 0, wave: 1, shake: 1, uncertain: 0 },
  },
};

describe('capture-desk model test', () => {
  it('prints each counted sample, the unfit ones with their reasons and the summary; every result is kept; a second run classifies nothing', async () => {
    const r = await modelTest(data, ['--model', 'a', '--stride-ms', '2000', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = lines(r.stdout);
    const line = (s: string, label: string, predicted: string, windows: number) => ({ sample_id: ids[s], label, predicted, windows, correct: predicted === label });
    expect(out.slice(0, 7)).toEqual([
      line('s1', 'idle', 'idle', 3), line('s2', 'idle', 'wave', 2), line('s3', 'wave', 'wave', 3), line('s4', 'wave', 'uncertain', 2),
      line('s5', 'wave', 'uncertain', 3), line('s6', 'shake', 'shake', 2), line('s7', 'shake', 'wave', 1),
    ]);
    expect(out.slice(0, 7).map((l) => Object.keys(l))).toEqual(Array(7).fill(['sample_id', 'label', 'predicted', 'windows', 'correct']));
    expect(out.slice(7, 11)).toEqual([
      { sample_id: ids['u1'], unfit: 'label "jump" is not one of model "a"\'s labels (idle, wave, shake)' },
      { sample_id: ids['u2'], unfit: '1440 ms long, shorter than one window of model "a" (2000 ms)' },
      { sample_id: ids['u3'], unfit: '2 axes, where model "a" takes 3' },
      { sample_id: ids['u4'], unfit: 'sampled at 10 Hz, under a quarter of the 62.5 Hz model "a" needs: resampling cannot make up what was never measured' },
    ]);
    expect(out[11]).toEqual({ summary: SUMMARY_A });
    expect(Object.keys(out[11]!['summary'] as object)).toEqual(['samples', 'accuracy', 'uncertain', 'unfit', 'per_label', 'confusion']);
    expect(out).toHaveLength(12);
    // 3 + 2 + 3 + 2 + 3 + 2 + 1 windows; u2 was judged from the index, u1 before reading.
    expect(r.stderr).toContain('Model "a": classified 7 samples (16 windows) in');
    expect(r.stderr).toContain('; 0 kept results of the same build, stride, threshold and sample content used as they were.');

    // Kept with each sample, as "samples classify --model" keeps it (the app's "Model says" reads it).
    const store = await SampleStore.open(data, silentLogger);
    try {
      const kept = new ClassificationStore(store.db).latest(Object.values(ids));
      expect([...kept.keys()].sort()).toEqual(['s1', 's2', 's3', 's4', 's5', 's6', 's7'].map((s) => ids[s]).sort());
      expect(kept.get(ids['s2']!)).toMatchObject({ local: { model: 'a', threshold: 0.6, sampleSha256: store.get(ids['s2']!).sha256 }, windowIncreaseMs: 2000 });
    } finally {
      await store.close();
    }

    // The same again: nothing is classified (no window reaches a worker), the answer is the same.
    const again = await modelTest(data, ['--model', 'a', '--stride-ms', '2000', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(r.stdout);
    expect(again.stderr).toContain('Model "a": classified 0 samples (0 windows) in');
    expect(again.stderr).toContain('; 7 kept results of the same build, stride, threshold and sample content used as they were.');

    // Another threshold is another test, classified anew: s5's two windows of 0.55 now count as wave, like its third.
    const lower = await modelTest(data, ['--model', 'a', '--stride-ms', '2000', '--threshold', '0.5', '--json']);
    expect(lower.code, lower.stderr).toBe(0);
    expect(lower.stderr).toContain('Model "a": classified 7 samples (16 windows) in');
    expect(lines(lower.stdout).find((l) => l['sample_id'] === ids['s5'])).toMatchObject({ predicted: 'wave', correct: true });
  }, 60_000);

  it('takes one label, another category, and says the matrix and the figures as tables without --json', async () => {
    const shake = await modelTest(data, ['--model', 'a', '--stride-ms', '2000', '--label', 'shake', '--json']);
    expect(shake.code, shake.stderr).toBe(0);
    expect(lines(shake.stdout).map((l) => l['sample_id'])).toEqual([ids['s6'], ids['s7'], undefined]);
    const training = await modelTest(data, ['--model', 'a', '--stride-ms', '2000', '--category', 'training', '--json']);
    expect(lines(training.stdout)[0]).toEqual({ sample_id: ids['t1'], label: 'idle', predicted: 'idle', windows: 1, correct: true });
    const all = await modelTest(data, ['--model', 'a', '--stride-ms', '2000', '--category', 'all', '--json']);
    expect((lines(all.stdout).at(-1)!['summary'] as { samples: number }).samples).toBe(8);

    const human = await modelTest(data, ['--model', 'a', '--stride-ms', '2000']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain('Model "a", 11 testing samples (windows of 2000 ms every 2000 ms, uncertain below 0.6):\nAccuracy 42.9 % (3 of 7 counted samples; 2 uncertain); 4 unfit.\n');
    expect(human.stdout).toContain([
      'actual ↓  predicted →  idle  wave  shake  uncertain',
      'idle                      1     1      0          0',
      'wave                      0     1      0          2',
      'shake                     0     1      1          0',
    ].join('\n'));
    expect(human.stdout).toContain([
      'label  precision  recall      F1  support',
      'idle      1.0000  0.5000  0.6667        2',
      'wave      0.3333  0.3333  0.3333        3',
      'shake     1.0000  0.5000  0.6667        2',
    ].join('\n'));
    expect(human.stdout).toContain(`Wrong (4):\n  "s2.json" (${ids['s2']}): idle, predicted wave\n`);
    expect(human.stdout).toContain(`Unfit, not counted (4):\n  "u1.json" (${ids['u1']}): label "jump" is not one of model "a"'s labels (idle, wave, shake)\n`);
  }, 60_000);

  it('compares two models: both predictions per sample, both matrices, the samples fixed and broken', async () => {
    const r = await modelTest(data, ['--model', 'a', '--model', 'b', '--stride-ms', '2000', '--json', '--workers', '2']);
    expect(r.code, r.stderr).toBe(0);
    const out = lines(r.stdout);
    // Model b, window by window: s1 idle idle idle; s2 idle idle; s3 idle wave idle; s4 idle idle; s5 idle ×3; s6 shake shake; s7 wave.
    const two = (s: string, label: string, pa: string, pb: string, windows: number) => ({
      sample_id: ids[s], label, predicted: { a: pa, b: pb }, windows: { a: windows, b: windows }, correct: { a: pa === label, b: pb === label },
    });
    expect(out.slice(0, 7)).toEqual([
      two('s1', 'idle', 'idle', 'idle', 3), two('s2', 'idle', 'wave', 'idle', 2), two('s3', 'wave', 'wave', 'idle', 3), two('s4', 'wave', 'uncertain', 'idle', 2),
      two('s5', 'wave', 'uncertain', 'idle', 3), two('s6', 'shake', 'shake', 'shake', 2), two('s7', 'shake', 'wave', 'wave', 1),
    ]);
    expect(out.slice(7, 11).map((l) => l['sample_id'])).toEqual([ids['u1'], ids['u2'], ids['u3'], ids['u4']]);
    expect(out[7]).toEqual({ sample_id: ids['u1'], unfit: 'model "a": label "jump" is not one of model "a"\'s labels (idle, wave, shake); model "b": label "jump" is not one of model "b"\'s labels (idle, wave, shake)' });
    const { samples: _s, unfit: _u, ...figuresA } = SUMMARY_A;
    expect(out[11]).toEqual({
      summary: {
        samples: 7,
        unfit: 4,
        models: {
          a: figuresA,
          b: {
            accuracy: 0.4286, // s1, s2, s6
            uncertain: 0,
            per_label: {
              idle: { precision: 0.4, recall: 1, f1: 0.5714, support: 2 }, // said idle for s1 s2 s3 s4 s5
              wave: { precision: 0, recall: 0, f1: 0, support: 3 },
              shake: { precision: 1, recall: 0.5, f1: 0.6667, support: 2 },
            },
            confusion: {
              idle: { idle: 2, wave: 0, shake: 0 },
              wave: { idle: 3, wave: 0, shake: 0 },
              shake: { idle: 0, wave: 1, shake: 1 },
            },
          },
        },
        fixed: [ids['s2']],
        broken: [ids['s3']],
      },
    });
    // a's results were kept by the first test: only b classified anything.
    expect(r.stderr).toContain('Model "a": classified 0 samples (0 windows) in');
    expect(r.stderr).toContain('Model "b": classified 7 samples (16 windows) in 2 workers;');

    const human = await modelTest(data, ['--model', 'a', '--model', 'b', '--stride-ms', '2000']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain(`Fixed: right with "b", wrong with "a" (1):\n  "s2.json" (${ids['s2']}): idle; "a" said wave, "b" said idle\n`);
    expect(human.stdout).toContain(`Broken: right with "a", wrong with "b" (1):\n  "s3.json" (${ids['s3']}): wave; "a" said wave, "b" said idle\n`);
  }, 60_000);

  it('exits 2 with a sentence for each command-line mistake, 1 when no sample could be counted', async () => {
    const cases: Array<[string[], string]> = [
      [['--model', 'a', '--threshold', '1.5'], '--threshold must be a number from 0 to 1; got "1.5".'],
      [['--model', 'a', '--threshold', 'high'], '--threshold must be a number from 0 to 1; got "high".'],
      [['--model', 'a', '--category', 'validation'], '--category must be testing, training or all; got "validation".'],
      [['--model', 'a', '--stride-ms', '0'], '--stride-ms must be a positive number of milliseconds; got "0".'],
      [['--model', 'a', '--stride-ms', 'fast'], '--stride-ms must be a positive number of milliseconds; got "fast".'],
      [[], 'model test needs --model NAME: an added model (see "capture-desk model list").'],
      [['--model', 'a', '--model', 'a'], '--model "a" was given twice: name two different models to compare them.'],
      [['--model', 'a', '--workers', '0'], '--workers must be a whole number from 1 to 16; got "0".'],
    ];
    for (const [args, said] of cases) {
      const r = await modelTest(data, args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(said);
      expect(r.stdout).toBe('');
    }
    const none = await modelTest(data, ['--model', 'a', '--label', 'nothing-has-this']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(`There are no testing samples labelled "nothing-has-this" in ${data}: nothing to test.`);
    const unfit = await modelTest(data, ['--model', 'a', '--label', 'jump', '--json']);
    expect(unfit.code).toBe(1);
    expect(lines(unfit.stdout)).toEqual([{ sample_id: ids['u1'], unfit: 'label "jump" is not one of model "a"\'s labels (idle, wave, shake)' }, { summary: expect.objectContaining({ samples: 0, unfit: 1, accuracy: 0 }) }]);
    expect(unfit.stderr).toContain('None of the 1 testing samples labelled "jump" could be counted: every one is unfit for the model');
    const missing = await modelTest(data, ['--model', 'nope']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('No model named "nope".');
  }, 60_000);

  it('gives a regression model MAE and RMSE, and the anomaly scores per sample and label', async () => {
    const reg = join(root(), 'data-regression');
    await mkdir(reg);
    // One label and no levels: every window answers 0.95; an anomaly block says the window's peak / 100 (the other axes hold 50 and 52).
    await addModel(reg, 'level', { ...PRESETS.gestureNew, labels: ['value'], rule: { levels: [] }, modelType: 'regression', hasAnomaly: true });
    const rows = (energies: number[]) => rowsWithEnergies(A, energies);
    const r1 = await importRows(reg, 'r1', '1', rows([3]));
    const r2 = await importRows(reg, 'r2', '0.5', rows([3]));
    const r3 = await importRows(reg, 'r3', '1', rows([60, 3]));
    const r4 = await importRows(reg, 'r4', 'high', rows([3]));
    const r = await modelTest(reg, ['--model', 'level', '--stride-ms', '2000', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(lines(r.stdout)).toEqual([
      { sample_id: r1, label: '1', predicted: 0.95, windows: 1, error: -0.05, anomaly: 0.52 },
      { sample_id: r2, label: '0.5', predicted: 0.95, windows: 1, error: 0.45, anomaly: 0.52 },
      { sample_id: r3, label: '1', predicted: 0.95, windows: 2, error: -0.05, anomaly: 0.6 },
      { sample_id: r4, unfit: 'label "high" is not a number, and model "level" is a regression model (it answers a value)' },
      // MAE (0.05 + 0.45 + 0.05) / 3; RMSE sqrt((0.0025 + 0.2025 + 0.0025) / 3).
      { summary: { samples: 3, mae: 0.183333, rmse: 0.262996, unfit: 1, anomaly: { '1': { min: 0.52, median: 0.56, max: 0.6, samples: 2 }, '0.5': { min: 0.52, median: 0.52, max: 0.52, samples: 1 } } } },
    ]);
    const human = await modelTest(reg, ['--model', 'level', '--stride-ms', '2000']);
    expect(human.stdout).toContain('Mean absolute error 0.183333, RMSE 0.262996 over 3 counted samples; 1 unfit.');
    expect(human.stdout).toContain('Anomaly score per label (each sample\'s highest window):\nlabel    min  median    max  samples\n1      0.520   0.560  0.600        2\n');
  }, 60_000);

  it('stops on Ctrl+C: exit 1 saying how far it got; the samples classified keep their results, the rest have none', async () => {
    const slow = join(root(), 'data-slow');
    await mkdir(slow);
    await addModel(slow, 'slow', { ...A, faults: { slowMs: 300 } }); // 300 ms a window: 40 windows take 12 s
    const files: string[] = [];
    for (let i = 0; i < 40; i++) {
      const f = join(root(), `slow-${i}.json`);
      await writeFile(f, JSON.stringify(sensorDoc(rowsWithEnergies(A, [3]), 16)));
      files.push(f);
    }
    const imported = await runCli(['samples', 'import', ...files, '--label', 'wave', '--category', 'testing', '--data-dir', slow, '--json'], { env: NO_PLATFORM });
    expect(imported.code, imported.stderr).toBe(0);
    let child: import('node:child_process').ChildProcess | undefined;
    const run = runCli(['model', 'test', '--model', 'slow', '--workers', '1', '--data-dir', slow, '--json'], { env: NO_PLATFORM, onSpawn: (c) => (child = c), timeoutMs: 90_000 });
    await new Promise((r) => setTimeout(r, 5000));
    child!.kill('SIGINT');
    const r = await run;
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const m = /The test of model "slow" was stopped after (\d+) of 40 samples; the samples classified keep their results\./.exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    const done = Number(m![1]);
    expect(done).toBeLessThan(40);
    const store = await SampleStore.open(slow, silentLogger);
    try {
      const ids = store.db.prepare('SELECT id FROM samples').pluck().all() as string[];
      expect(new ClassificationStore(store.db).latest(ids).size).toBe(done);
    } finally {
      await store.close();
    }
  }, 120_000);

  it('says itself in the model group\'s help', async () => {
    const r = await runCli(['model', 'test', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: capture-desk model test --model NAME [--model NAME2] [--category testing|training|all]');
    const g = await runCli(['model', '--help']);
    expect(g.stdout).toContain('model test --model NAME');
  });
});
