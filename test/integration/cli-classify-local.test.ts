// `capture-desk samples classify ID --model NAME` through the built CLI (npm test builds it first):
// a model added with `model add` from the test model kit, samples imported with `samples import`
// from acquisition files whose rows the test wrote window by window, and the JSON lines compared
// with what the test model answers for exactly those windows; the result kept with the sample;
// a missing model, a misfit and a too-short sample refused with a sentence. No platform settings,
// no key: the environment has none and the data folder gets none.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClassificationStore } from '../../src-main/core/classify/classification-store.js';
import { digestOf } from '../../src-main/core/classify/classify-result.js';
import { silentLogger } from '../../src-main/core/log.js';
import { SampleStore } from '../../src-main/core/samples/sample-store.js';
import { runCli } from '../support/cli.js';
import { sensorDoc } from '../support/ingestion-server/fixtures.js';
import { expectedTop, PRESETS, rowsWithEnergies, windowWithEnergy, writeTestModel } from '../support/models/test-model.mjs';
import { useTempDir } from '../support/temp-dir.js';

const G = PRESETS.gestureNew; // 62.5 Hz (16 ms a row), 125 rows a window (2000 ms), 3 axes
const NO_PLATFORM = { CAPTURE_DESK_API_KEY: '', CAPTURE_DESK_HMAC_KEY: '' };
const root = useTempDir('cd-cli-classify-local-');
let n = 0;

interface WindowLine { start_ms: number; end_ms: number; label: string; confidence: number; scores: Record<string, number>; anomaly?: number | null }
interface SummaryLine { summary: true; windows: number; by_label: Record<string, number>; expected: string | null; agree: number | null; classified_at: string; kept: boolean }
const lines = (out: string) => out.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

const rowsOf = (energies: number[], axes = 3) => rowsWithEnergies(G, energies, axes);

/** A data folder with model "gestures" added by the CLI, and a way to import acquisition files into it. */
async function folder(opts = G) {
  const data = join(root(), `data-${n++}`);
  await mkdir(data);
  const { dir } = await writeTestModel(join(root(), `export-${n++}`), opts);
  const add = await runCli(['model', 'add', dir, '--name', 'gestures', '--data-dir', data], { env: NO_PLATFORM });
  expect(add.code, add.stderr).toBe(0);
  const importRows = async (name: string, label: string, rows: number[][], intervalMs = 16): Promise<string> => {
    const file = join(root(), `${name}.json`);
    await writeFile(file, JSON.stringify(sensorDoc(rows, intervalMs)));
    const r = await runCli(['samples', 'import', file, '--label', label, '--category', 'testing', '--data-dir', data, '--json'], { env: NO_PLATFORM });
    expect(r.code, r.stderr).toBe(0);
    return (lines(r.stdout)[0] as { id: string }).id;
  };
  const classify = (id: string, more: string[] = []) => runCli(['samples', 'classify', id, '--model', 'gestures', '--data-dir', data, ...more], { env: NO_PLATFORM });
  return { data, importRows, classify };
}

describe('capture-desk samples classify --model', () => {
  it('prints one JSON line per window at i × stride, as the model answers for those windows, then the summary; the result is kept', async () => {
    const { data, importRows, classify } = await folder();
    const energies = [0.5, 3, 1, 5, 2.05];
    const id = await importRows('take', 'wave', rowsOf(energies));

    const r = await classify(id, ['--stride-ms', '2000', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = lines(r.stdout);
    const windows = out.slice(0, -1) as unknown as WindowLine[];
    expect(windows).toEqual(energies.map((e, i) => {
      const t = expectedTop(G, windowWithEnergy(G, e));
      return { start_ms: i * 2000, end_ms: i * 2000 + 2000, label: t.label, confidence: t.confidence, scores: t.scores };
    }));
    expect(windows.map((w) => [w.label, w.confidence])).toEqual([['idle', 0.95], ['wave', 0.95], ['idle', 0.95], ['wave', 0.95], ['wave', 0.55]]);
    const summary = out.at(-1) as unknown as SummaryLine;
    expect(summary).toMatchObject({ summary: true, windows: 5, by_label: { idle: 2, wave: 3 }, expected: 'wave', agree: 3, kept: false });
    expect(Date.now() - Date.parse(summary.classified_at)).toBeLessThan(60_000);
    expect(Object.keys(summary)).toEqual(['summary', 'windows', 'by_label', 'expected', 'agree', 'classified_at', 'kept']);

    // Nothing of the platform was needed or written.
    expect(existsSync(join(data, 'settings.json'))).toBe(false);

    // Kept with the sample, as the app reads it ("Model says": the newest result, its source in words).
    const store = await SampleStore.open(data, silentLogger);
    try {
      const kept = new ClassificationStore(store.db).latest([id]).get(id)!;
      expect(kept.local).toMatchObject({ model: 'gestures', threshold: 0.6 });
      expect(kept.blocks[0]!.windows.map((w) => w.label)).toEqual(windows.map((w) => w.label));
      expect(digestOf(kept).source).toBe('on this computer: gestures');
      expect(store.get(id)).toMatchObject({ state: 'local', platformSampleId: null });
    } finally {
      await store.close();
    }
  });

  it('slides a quarter window by default; the human form says where the result came from', async () => {
    const { importRows, classify } = await folder({ ...G, hasAnomaly: true });
    const rows = rowsOf([0.5, 3, 1]);
    const id = await importRows('take', 'idle', rows);
    const r = await classify(id, ['--json', '--threshold', '0.9']);
    expect(r.code, r.stderr).toBe(0);
    const out = lines(r.stdout);
    const windows = out.slice(0, -1) as unknown as WindowLine[];
    expect(windows).toHaveLength(9); // (6000 - 2000) / 500 + 1
    for (const [i, w] of windows.entries()) {
      const first = Math.round((i * 500) / 16);
      const t = expectedTop({ ...G, hasAnomaly: true }, Float32Array.from(rows.slice(first, first + 125).flat()));
      expect(w, `window ${i}`).toEqual({ start_ms: i * 500, end_ms: i * 500 + 2000, label: t.label, confidence: t.confidence, scores: t.scores, anomaly: t.anomaly });
    }
    expect(new Set(windows.map((w) => w.label))).toEqual(new Set(['idle', 'wave']));
    const human = await classify(id);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^"take\.json", on this computer: gestures \(build [0-9a-f]{12}, uncertain below 0\.6\): classified at \S+\nWindows of 2000 ms every 500 ms over 6000 ms:\n/);
    expect(human.stdout).toContain('Kept with the sample; the app shows it as "on this computer: gestures".');
  });

  it('exits 1 with a sentence for a model not added, a misfit and a too-short sample; 2 for platform flags with --model', async () => {
    const { importRows, classify, data } = await folder();
    const id = await importRows('ok', 'wave', rowsOf([3]));
    const missing = await runCli(['samples', 'classify', id, '--model', 'nope', '--data-dir', data], { env: NO_PLATFORM });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('No model named "nope". Added: gestures.');

    const two = await importRows('two', 'wave', rowsOf([3, 3], 2));
    const misfit = await classify(two);
    expect(misfit.code).toBe(1);
    expect(misfit.stderr).toContain('Model "gestures" takes 3 axes; "two.json" gives 2 (s0, s1).');
    const slow = await importRows('slow', 'wave', rowsOf([3, 3]), 100);
    const slowR = await classify(slow);
    expect(slowR.code).toBe(1);
    expect(slowR.stderr).toContain('"slow.json" gives 10 Hz; model "gestures" needs 62.5 Hz, more than 4 times faster');

    const short = await importRows('short', 'wave', rowsOf([3]).slice(0, 90));
    const shortR = await classify(short, ['--json']);
    expect(shortR.code).toBe(1);
    expect(shortR.stdout).toBe('');
    expect(shortR.stderr).toContain('"short.json" is 1440 ms long, shorter than one window of model "gestures" (2000 ms): nothing to classify.');

    const flags = await classify(id, ['--variant', 'int8']);
    expect(flags.code).toBe(2);
    expect(flags.stderr).toContain("--variant is for the platform's impulse; --model classifies on this computer.");
    const stride = await runCli(['samples', 'classify', id, '--stride-ms', '100', '--data-dir', data], { env: NO_PLATFORM });
    expect(stride.code).toBe(2);
    expect(stride.stderr).toContain('--stride-ms and --threshold go with --model NAME');

    // Nothing was kept by the refusals.
    const store = await SampleStore.open(data, silentLogger);
    try {
      expect(new ClassificationStore(store.db).latest([two, slow, short]).size).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('says --model in its usage', async () => {
    const r = await runCli(['samples', 'classify', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('capture-desk samples classify ID --model NAME [--stride-ms N] [--threshold X] [--data-dir DIR] [--json]');
    const s = await runCli(['samples', '--help']);
    expect(s.stdout).toContain('samples classify ID --model NAME [--stride-ms N] [--threshold X] [--data-dir DIR] [--json]');
  });
});
