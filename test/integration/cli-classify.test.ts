import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { createCore } from '../../src-main/core/app.js';
import type { CallResult, Classification } from '../../src-main/core/contract/contract.js';
import { createLogger } from '../../src-main/core/log.js';
import { memoryKeychain } from '../../src-main/core/secrets/keychain.js';
import { playTone, privateSink, testPulseFromEnv } from '../support/audio/pulse.mjs';
import { lineBoard } from '../support/boards/board-on-pty.js';
import { useCleanups } from '../support/cleanups.js';
import { runCli } from '../support/cli.js';
import { fixedPorts } from '../support/fake-hardware.js';
import { seriesOf } from '../support/ingestion-server/classify-data.js';
import { classifySeries, DEFAULT_IMPULSE, slidingWindows, type EmulatedImpulse } from '../support/ingestion-server/classify-model.js';
import { startIngestionServer, type IngestionServer } from '../support/ingestion-server/server.js';

// `capture-desk samples classify` end to end: takes recorded by the built CLI from a PTY board and
// from the PulseAudio test microphone, uploaded to testing on the emulated platform, classified
// there; the JSON lines checked window by window against the platform's own model.

const WORKER = fileURLToPath(new URL('../../dist/audio/capture-worker.js', import.meta.url));
const KEY = 'ei_test_key';
const cleanups = useCleanups();

interface WindowLine { start_ms: number; end_ms: number; label: string; confidence: number; scores: Record<string, number>; block?: string; anomaly?: number }
interface SummaryLine { summary: true; windows: number; by_label: Record<string, number>; expected: string | null; agree: number | null; block?: string; classified_at: string; kept: boolean }

async function platform(): Promise<IngestionServer> {
  const srv = await startIngestionServer();
  cleanups.push(() => srv.close());
  return srv;
}
const dataDir = async () => join(await mkdtemp(join(tmpdir(), 'cd-classify-')), 'data');

async function boardTake(srv: IngestionServer, dir: string, label = 'wave', extra: string[] = ['--upload', '--ingestion-url', srv.url, '--api-key', KEY], lengthMs = '3000', category = 'testing') {
  const { pty } = await lineBoard(cleanups, ['--rate', '100']);
  const r = await runCli(['record', 'serial', '--port', pty.hostPath, '--length-ms', lengthMs, '--label', label, '--category', category, ...extra, '--data-dir', dir]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { id: string; state: string; platform: { sample_id: number | null } };
}

function classify(srv: IngestionServer, dir: string, id: string, more: string[] = []) {
  // A flag in `more` takes the place of its default (a one-value flag given twice is a usage mistake).
  const defaults = [['--management-url', srv.managementUrl], ['--project-id', '1'], ['--api-key', KEY], ['--data-dir', dir]].filter(([flag]) => !more.includes(flag!)).flat();
  return runCli(['samples', 'classify', id, '--json', ...defaults, ...more]);
}

function parse(stdout: string): { windows: WindowLine[]; summaries: SummaryLine[] } {
  const lines = stdout.trim().split('\n').map((l) => JSON.parse(l) as WindowLine | SummaryLine);
  return { windows: lines.filter((l): l is WindowLine => !('summary' in l)), summaries: lines.filter((l): l is SummaryLine => 'summary' in l) };
}

/** What the platform's model says for the stored sample, and the windows the spec's rule gives. */
function expected(srv: IngestionServer, platformId: number, impulse: EmulatedImpulse, variant: string) {
  const stored = srv.samples.find((s) => s.id === platformId)!;
  const series = seriesOf(stored)!;
  const lengthMs = series.rows * series.intervalMs;
  return { lengthMs, results: classifySeries(series, impulse, variant), spans: slidingWindows(lengthMs, impulse.windowSizeMs, impulse.windowIncreaseMs) };
}

const classifyRequests = (srv: IngestionServer) => srv.requests.filter((r) => r.path.includes('/classify/v2/'));
const r3 = (x: number) => Math.round(x * 1000) / 1000;

describe('capture-desk samples classify', () => {
  beforeAll(async () => {
    const help = await runCli(['samples', 'classify', '--help']);
    expect(help.stdout).toContain('samples classify ID');
  });

  it('classifies a board take uploaded to testing: one JSON line per window at i × increase, clipped, then the summary; kept for the next run and a new core', async () => {
    const srv = await platform();
    const dir = await dataDir();
    const take = await boardTake(srv, dir);
    expect(take).toMatchObject({ state: 'uploaded', platform: { sample_id: expect.any(Number) } });
    const r = await classify(srv, dir, take.id);
    expect(r.code, r.stderr).toBe(0);
    const { windows, summaries } = parse(r.stdout);

    const want = expected(srv, take.platform.sample_id!, DEFAULT_IMPULSE, 'int8');
    expect(windows).toHaveLength(want.spans.length);
    expect(windows.length).toBeGreaterThanOrEqual(4);
    windows.forEach((w, i) => {
      expect(w.start_ms).toBe(i * 500);
      expect(w.end_ms).toBe(r3(Math.min(i * 500 + 1000, want.lengthMs)));
      expect(w.scores).toEqual(want.results[0]![i]);
      const top = Object.entries(w.scores).sort((a, b) => b[1] - a[1])[0]!;
      expect([w.label, w.confidence]).toEqual(top);
      expect(w).not.toHaveProperty('block');
    });
    // The board prints sines of amplitude 1, 2 and 3: "wave" energy in every window.
    expect(windows.every((w) => w.label === 'wave')).toBe(true);
    expect(summaries).toEqual([{ summary: true, windows: windows.length, by_label: { wave: windows.length }, expected: 'wave', agree: windows.length, classified_at: expect.any(String), kept: false }]);
    expect(classifyRequests(srv)).toHaveLength(1);
    expect(classifyRequests(srv)[0]).toMatchObject({ method: 'POST', path: `/v1/api/1/classify/v2/${take.platform.sample_id}`, query: '?variant=int8', status: 200 });

    // A second run prints the kept result and asks nothing of the platform.
    const again = await classify(srv, dir, take.id);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/Kept result from .*nothing was asked of the platform/);
    const kept = parse(again.stdout);
    expect(kept.windows).toEqual(windows);
    expect(kept.summaries).toEqual([{ ...summaries[0], kept: true }]);
    expect(classifyRequests(srv)).toHaveLength(1);

    // So does a new core (the app) on the same data directory.
    const core = await createCore({ dataDir: dir, shell: 'cli', hardware: { ports: fixedPorts([]), keychain: memoryKeychain() }, uploads: false, log: createLogger(() => {}) });
    cleanups.push(() => core.close());
    await core.dispatch('settings.set', { managementUrl: srv.managementUrl, projectId: 1 });
    const shown = (await core.dispatch('samples.classification', { id: take.id })) as CallResult<Classification>;
    expect(shown.ok && shown.value.blocks[0]!.windows.map((w) => w.scores)).toEqual(windows.map((w) => w.scores));
    expect(shown.ok && shown.value.classifiedAt).toBe(summaries[0]!.classified_at);
    const says = (await core.dispatch('samples.modelSays', { ids: [take.id] })) as CallResult<{ results: Array<{ text: string }> }>;
    expect(says.ok && says.value.results[0]!.text).toMatch(new RegExp(`^wave: ${windows.length} of ${windows.length} windows, mean confidence`));
    expect(classifyRequests(srv)).toHaveLength(1);

    // --again asks the platform again; float32 is a result of its own.
    const fresh = await classify(srv, dir, take.id, ['--again']);
    expect(parse(fresh.stdout).summaries[0]!.kept).toBe(false);
    const f32 = await classify(srv, dir, take.id, ['--variant', 'float32']);
    expect(parse(f32.stdout).windows.map((w) => w.scores)).toEqual(expected(srv, take.platform.sample_id!, DEFAULT_IMPULSE, 'float32').results[0]);
    expect(classifyRequests(srv).map((q) => q.query)).toEqual(['?variant=int8', '?variant=int8', '?variant=float32']);
  }, 60_000);

  it('prints each learn block of an impulse with several, and waits for the platform\'s classification job (saying so on stderr): one job, then asked once more', async () => {
    const srv = await platform();
    const dir = await dataDir();
    const take = await boardTake(srv, dir, 'wave');
    const impulse: EmulatedImpulse = {
      ...DEFAULT_IMPULSE, id: 3, windowSizeMs: 1200, windowIncreaseMs: 400,
      learnBlocks: [DEFAULT_IMPULSE.learnBlocks[0]!, { id: 8, name: 'Motion rate', title: 'Classification', feature: 'dominant-hz', labels: { slow: 0.5, fast: 5 }, anomaly: true }],
    };
    srv.setFaults({ impulse, classifyJobPolls: 1 });
    const r = await classify(srv, dir, take.id, ['--impulse-id', '3']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.match(/Waiting for the platform's classification job 1 for ".*"; looking at it again in/g)).toHaveLength(2);
    expect(r.stderr).toMatch(/looking at it again in 1 s[\s\S]*looking at it again in 2 s/);
    expect(srv.classifyJobs.map((j) => [j.id, j.polls, j.finishedSuccessful])).toEqual([[1, 2, true]]);
    expect(srv.requests.filter((q) => q.path.includes('/jobs/')).map((q) => `${q.method} ${q.path}`)).toEqual(Array(2).fill('GET /v1/api/1/jobs/1/status'));
    const { windows, summaries } = parse(r.stdout);
    const want = expected(srv, take.platform.sample_id!, impulse, 'int8');
    const n = want.spans.length;
    expect(windows).toHaveLength(2 * n);
    expect(windows.slice(0, n).every((w) => w.block === 'NN Classifier' && !('anomaly' in w))).toBe(true);
    expect(windows.slice(n).every((w) => w.block === 'Motion rate' && typeof w.anomaly === 'number')).toBe(true);
    windows.slice(n).forEach((w, i) => {
      expect([w.start_ms, w.end_ms]).toEqual([i * 400, r3(Math.min(i * 400 + 1200, want.lengthMs))]);
      expect({ ...w.scores, anomaly: w.anomaly }).toEqual(want.results[1]![i]);
    });
    expect(summaries.map((s) => [s.block, s.windows, s.expected])).toEqual([['NN Classifier', n, 'wave'], ['Motion rate', n, 'wave']]);
    expect(summaries[1]!.agree).toBe(0);
    expect(classifyRequests(srv).map((q) => q.query)).toEqual(Array(2).fill('?variant=int8&impulseId=3'));
  }, 60_000);

  it('a regression block\'s windows are never uncertain (its minimumConfidenceRating is an absolute error); fractional window sizes are placed as given; a training take is said to be in the training data', async () => {
    const srv = await platform();
    const dir = await dataDir();
    const take = await boardTake(srv, dir, 'wave', undefined, '3000', 'training');
    const impulse: EmulatedImpulse = {
      ...DEFAULT_IMPULSE, id: 4, windowSizeMs: 1000.5, windowIncreaseMs: 333.25, minimumConfidenceRating: 2.5,
      learnBlocks: [{ id: 9, type: 'keras-regression', name: 'Amplitude', title: 'Regression', feature: 'rms', labels: {} }],
    };
    srv.setFaults({ impulse });
    const json = await classify(srv, dir, take.id, ['--impulse-id', '4']);
    expect(json.code, json.stderr).toBe(0);
    const { windows } = parse(json.stdout);
    const want = expected(srv, take.platform.sample_id!, impulse, 'int8');
    expect(windows).toHaveLength(want.spans.length);
    windows.forEach((w, i) => {
      expect([w.start_ms, w.end_ms]).toEqual([r3(i * 333.25), r3(Math.min(i * 333.25 + 1000.5, want.lengthMs))]);
      expect(w.scores).toEqual(want.results[0]![i]);
    });
    // Every value is below 2.5: a confidence that low would be "uncertain"; an error bound is not.
    expect(windows.every((w) => w.label === 'value' && w.confidence < 2.5)).toBe(true);
    const plain = await runCli(['samples', 'classify', take.id, '--again', '--impulse-id', '4', '--management-url', srv.managementUrl, '--project-id', '1', '--api-key', KEY, '--data-dir', dir]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toContain('Windows of 1000.5 ms every 333.25 ms');
    expect(plain.stdout).not.toMatch(/uncertain/);
    expect(plain.stdout).toContain('The platform says this sample is already in its training data: the model may have learnt from it.');
  }, 60_000);

  it('clips the one window of a take shorter than the impulse window to the take', async () => {
    const srv = await platform();
    const dir = await dataDir();
    const take = await boardTake(srv, dir, 'wave', ['--upload', '--ingestion-url', srv.url, '--api-key', KEY], '700');
    const r = await classify(srv, dir, take.id);
    expect(r.code, r.stderr).toBe(0);
    const { windows } = parse(r.stdout);
    const want = expected(srv, take.platform.sample_id!, DEFAULT_IMPULSE, 'int8');
    expect(want.lengthMs).toBeLessThan(1000);
    expect(windows.map((w) => [w.start_ms, w.end_ms])).toEqual([[0, r3(want.lengthMs)]]);
    expect(windows[0]!.scores).toEqual(want.results[0]![0]);
  }, 60_000);

  it('exits 1 with the platform\'s words and what to do: no impulse, data it cannot take, a refused key, not uploaded, deleted on the platform', async () => {
    const srv = await platform();
    const dir = await dataDir();
    const take = await boardTake(srv, dir);
    const fails = async (more: string[], text: RegExp, id = take.id) => {
      const r = await classify(srv, dir, id, ['--again', ...more]);
      expect(r.code, r.stdout).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(text);
    };
    srv.setFaults({ impulse: null });
    await fails([], /has no trained impulse yet \(the platform said: "No trained impulse in this project yet: design and train an impulse first"\)\. Design and train an impulse/);
    srv.setFaults({ impulse: { ...DEFAULT_IMPULSE, accepts: ['audio'] } });
    await fails([], /cannot classify ".*" \(the platform said: "The impulse cannot classify this sample: it takes audio \(WAV\), and this sample is sensor data"\)/);
    srv.setFaults({ impulse: DEFAULT_IMPULSE });
    await fails(['--impulse-id', '6'], /has no impulse 6 \(the platform said: "Impulse 6 not found"\)/);
    await fails(['--api-key', 'wrong'], /refused the API key \(401\)/);
    await fails(['--project-id', '2'], /no project 2 .*\(the platform said: "Project not found"\)/);

    const local = await boardTake(srv, dir, 'idle', []);
    expect(local.state).toBe('local');
    await fails([], /is not on the platform yet \(local\): upload it first/, local.id);

    srv.deleteSample(take.platform.sample_id!);
    await fails([], /is no longer on the platform \(sample \d+\) \(the platform said: "Sample not found"\): it was deleted there\. Upload it again/);
    // Nothing of the local sample changed.
    const list = await runCli(['samples', 'list', '--json', '--data-dir', dir]);
    expect(JSON.parse(list.stdout.trim().split('\n')[0]!)).toMatchObject({ id: take.id, state: 'uploaded', platform: { sample_id: take.platform.sample_id } });
    const bad = await runCli(['samples', 'classify', take.id, '--variant', 'int4', '--data-dir', dir]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--variant must be int8 or float32');
  }, 60_000);
});

// The PulseAudio test microphone (bash test/env.sh provides it) and the built capture worker.
const audioReady = !!process.env.PULSE_SERVER && existsSync(WORKER);
if (!audioReady) console.warn('audio classify test skipped: run inside bash test/env.sh after npm run build');

describe.skipIf(!audioReady)('capture-desk samples classify (microphone take)', () => {
  it('classifies a take from the PulseAudio microphone by its dominant frequency, window by window', async () => {
    const srv = await platform();
    const dir = await dataDir();
    const priv = await privateSink(testPulseFromEnv().env);
    cleanups.push(() => priv.unload());
    const tone = playTone({ env: priv.env, sink: priv.sink, tones: [{ freq: 1000, amp: 0.5 }] });
    cleanups.push(() => tone.stop());
    const impulse: EmulatedImpulse = {
      id: 12, windowSizeMs: 1000, windowIncreaseMs: 250, accepts: ['audio'], axes: null, minimumConfidenceRating: 0.6,
      learnBlocks: [{ id: 4, name: 'Tones', title: 'Classification', feature: 'dominant-hz', labels: { hum: 250, tone: 1000, whistle: 4000 } }],
    };
    srv.setFaults({ impulse });
    const rec = await runCli(['record', 'audio', '--rate', '16000', '--length-ms', '2200', '--label', 'tone', '--category', 'testing', '--upload', '--ingestion-url', srv.url, '--api-key', KEY, '--data-dir', dir], { env: priv.env });
    expect(rec.code, rec.stderr).toBe(0);
    const take = JSON.parse(rec.stdout.trim().split('\n').at(-1)!) as { id: string; state: string; platform: { sample_id: number } };
    expect(take.state).toBe('uploaded');
    const r = await classify(srv, dir, take.id, ['--variant', 'float32', '--impulse-id', '12']);
    expect(r.code, r.stderr).toBe(0);
    const { windows, summaries } = parse(r.stdout);
    const want = expected(srv, take.platform.sample_id, impulse, 'float32');
    expect(want.lengthMs).toBe(2200);
    // (2200 - 1000) / 250 + 1 = 5 windows, the last one ending at 2000.
    expect(windows.map((w) => [w.start_ms, w.end_ms])).toEqual([[0, 1000], [250, 1250], [500, 1500], [750, 1750], [1000, 2000]]);
    expect(windows.map((w) => w.scores)).toEqual(want.results[0]);
    expect(windows.every((w) => w.label === 'tone' && w.confidence > 0.9)).toBe(true);
    expect(summaries).toEqual([expect.objectContaining({ windows: 5, by_label: { tone: 5 }, expected: 'tone', agree: 5, kept: false })]);
  }, 60_000);
});
