// `capture-desk model test` on a real export of the platform (the keyword model in ../shared/models,
// never copied into the repository; skipped where it is not). Its answers are not known by hand, so
// every prediction is checked against what `samples classify --model` says for the same sample
// window by window (the verdict rules applied to its scores), the figures against the lines, and
// the unfit reasons and the kept results as with the test model.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { classificationFigures } from '../../src-main/core/evaluate/confusion.js';
import { samplePrediction, windowVerdict } from '../../src-main/core/evaluate/verdicts.js';
import { spokenTake } from '../support/audio/speech.js';
import { monoWav } from '../support/audio/wav-bytes.mjs';
import { runCli } from '../support/cli.js';
import { useTempDir } from '../support/temp-dir.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The shared folder beside the checkout (../shared), or beside the folder of worktrees (../../shared). */
const KWS = [resolve(ROOT, '..', 'shared', 'models', 'kws-hi-bye-16k'), resolve(ROOT, '..', '..', 'shared', 'models', 'kws-hi-bye-16k')].find((p) => existsSync(join(p, 'edge-impulse-standalone.js')));
const NO_PLATFORM = { CAPTURE_DESK_API_KEY: '', CAPTURE_DESK_HMAC_KEY: '' };
const root = useTempDir('cd-cli-model-test-real-');
const lines = (out: string) => out.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

describe.skipIf(!KWS)('capture-desk model test on the real keyword export', () => {
  it('predicts for each sample what its windows in `samples classify --model` add up to; unfit samples say why; a second run classifies nothing', async () => {
    const data = join(root(), 'data');
    await mkdir(data);
    const add = await runCli(['model', 'add', KWS!, '--name', 'kws', '--data-dir', data], { env: NO_PLATFORM });
    expect(add.code, add.stderr).toBe(0);
    const importWav = async (file: string, label: string): Promise<string> => {
      const r = await runCli(['samples', 'import', file, '--label', label, '--category', 'testing', '--data-dir', data, '--json'], { env: NO_PLATFORM });
      expect(r.code, r.stderr).toBe(0);
      return (lines(r.stdout)[0] as { id: string }).id;
    };
    const wav = async (name: string, frames: number, rate: number, sample?: (i: number) => number): Promise<string> => {
      const f = join(root(), name);
      await writeFile(f, monoWav(frames, rate, sample));
      return f;
    };
    const counted: string[] = [];
    for (const word of ['hi', 'bye']) {
      await mkdir(join(root(), word));
      counted.push(await importWav((await spokenTake(join(root(), word), [word, word], [600], { leadMs: 300, tailMs: 300 })).file, word));
    }
    counted.push(await importWav(await wav('quiet.wav', 16_000, 16_000), 'unknown'));
    counted.push(await importWav(await wav('tone.wav', 16_000, 16_000, (i) => Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 16_000))), 'unknown'));
    const short = await importWav(await wav('short.wav', 4800, 16_000), 'hi');
    const slow = await importWav(await wav('slow.wav', 4000, 2000), 'hi');
    const other = await importWav(await wav('other.wav', 16_000, 16_000), 'maybe');

    const r = await runCli(['model', 'test', '--model', 'kws', '--data-dir', data, '--json', '--workers', '2'], { env: NO_PLATFORM });
    expect(r.code, r.stderr).toBe(0);
    const out = lines(r.stdout);
    expect(out.slice(0, 4).map((l) => l['sample_id'])).toEqual(counted);
    expect(out.slice(4, 7)).toEqual([
      { sample_id: short, unfit: '300 ms long, shorter than one window of model "kws" (500 ms)' },
      { sample_id: slow, unfit: 'sampled at 2000 Hz, under a quarter of the 16000 Hz model "kws" needs: resampling cannot make up what was never measured' },
      { sample_id: other, unfit: 'label "maybe" is not one of model "kws"\'s labels (bye, hi, unknown)' },
    ]);

    // Each prediction, as the windows `samples classify` gives for the same sample make it.
    const outcomes: Array<{ actual: string; predicted: string }> = [];
    let windows = 0;
    for (const [i, id] of counted.entries()) {
      const c = await runCli(['samples', 'classify', id, '--model', 'kws', '--data-dir', data, '--json'], { env: NO_PLATFORM });
      expect(c.code, c.stderr).toBe(0);
      const ws = lines(c.stdout).slice(0, -1) as Array<{ scores: Record<string, number> }>;
      const predicted = samplePrediction(ws.map((w) => windowVerdict(w.scores, 0.6)));
      const line = out[i]!;
      expect(line, `sample ${i}`).toEqual({ sample_id: id, label: line['label'], predicted, windows: ws.length, correct: predicted === line['label'] });
      outcomes.push({ actual: line['label'] as string, predicted });
      windows += ws.length;
    }
    // 1 s at stride 125 ms: 5 windows; the spoken takes are longer.
    expect(out[2]!['windows']).toBe(5);
    const { samples, accuracy, uncertain, per_label, confusion } = classificationFigures(['bye', 'hi', 'unknown'], outcomes);
    expect(out[7]).toEqual({ summary: { samples, accuracy, uncertain, unfit: 3, per_label, confusion } });
    expect(r.stderr).toContain(`Model "kws": classified 4 samples (${windows} windows) in 2 workers; 0 kept results`);

    // `samples classify` kept the same windows anew (same build, stride, threshold, bytes): nothing to classify.
    const again = await runCli(['model', 'test', '--model', 'kws', '--data-dir', data, '--json'], { env: NO_PLATFORM });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(r.stdout);
    expect(again.stderr).toContain('Model "kws": classified 0 samples (0 windows) in');
  }, 180_000);
});
