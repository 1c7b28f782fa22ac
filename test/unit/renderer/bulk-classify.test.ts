// "Classify with model…" on all matching samples as the bulk bar runs it: the renderer's own Api
// client, MatchingBulk and JobRunner against the real core with a test model in its worker. The
// confirmation states the count and what stays and why; the job reports progress; the sentence at
// the end says what was classified and what was left alone; a cancel says what was kept.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../../src-main/core/app.js';
import type { BulkResult, JobProgress } from '../../../src-main/core/contract/contract.js';
import { createLogger } from '../../../src-main/core/log.js';
import { memoryKeychain } from '../../../src-main/core/secrets/keychain.js';
import { createApi, type Api } from '../../../src-renderer/lib/api/client.js';
import * as bulk from '../../../src-renderer/lib/samples/bulk.js';
import { MatchingBulk } from '../../../src-renderer/lib/state/bulk-matching.svelte.js';
import { JobRunner } from '../../../src-renderer/lib/state/jobs.svelte.js';
import { fixedPorts } from '../../support/fake-hardware.js';
import { encodeCbor, sensorDoc } from '../../support/ingestion-server/fixtures.js';
import { PRESETS, windowWithEnergy, writeTestModel } from '../../support/models/test-model.mjs';
import { testModelSpawner } from '../../support/models/worker.js';

const G = PRESETS.gestureNew;
let work: string;
let core: Core;
let api: Api;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'cd-bulk-classify-'));
  core = await createCore({ dataDir: join(work, 'data'), shell: 'browser', uploads: false, hardware: { ports: fixedPorts([]), keychain: memoryKeychain(), modelWorker: await testModelSpawner() }, log: createLogger(() => {}) });
  api = createApi({ call: (m, i) => core.dispatch(m, i), onEvent: (l) => core.onEvent(l), onStatus: () => () => {} });
  await api.call('models.add', { path: (await writeTestModel(join(work, 'fast'), G)).dir, name: 'gestures' });
  await api.call('models.add', { path: (await writeTestModel(join(work, 'slow'), { ...G, faults: { slowMs: 30 } })).dir, name: 'slow' });
}, 60_000);
afterAll(async () => {
  await core.close();
  rmSync(work, { recursive: true, force: true });
});

function rows(energy: number, windows: number): number[][] {
  const w = windowWithEnergy(G, energy);
  const one = Array.from({ length: G.frameSampleCount }, (_, r) => [w[r * 3]!, w[r * 3 + 1]!, w[r * 3 + 2]!]);
  return Array.from({ length: windows }, () => one).flat();
}
const add = (name: string, label: string, values: number[][]) =>
  api.call('samples.addFile', { name, bytes: new Uint8Array(encodeCbor(sensorDoc(values, 16))), category: 'testing', label, queue: false });

describe('classify all matching with a model on this computer', () => {
  it('asks with the count and what stays, runs as a job with progress, and says what was classified and left alone', async () => {
    await add('wave.1.cbor', 'wave', rows(3, 2));
    await add('wave.2.cbor', 'wave', rows(0.5, 2));
    await add('wave.3.cbor', 'wave', rows(3, 2).map((r) => r.slice(0, 2)));
    await add('wave.short.cbor', 'wave', rows(3, 1).slice(0, 50));
    const job = new JobRunner(api, 'classify');
    const m = new MatchingBulk(api, new JobRunner(api, 'export'), job);
    const progress: JobProgress[] = [];
    const off = api.on('samples.progress', (p) => progress.push(p));
    await m.ask({ type: 'classify', model: 'gestures' }, { text: 'wave' });
    expect(m.pending?.text).toBe('Classify 3 samples on this computer with model "gestures"? Each result is kept as it is made. 1 stays as it is: shorter than one window of model "gestures" (2000 ms).');
    const r = await m.confirm();
    off();
    expect(r).toEqual({ text: '2 samples classified on this computer with model "gestures". 2 samples left alone: 1 shorter than one window of model "gestures" (2000 ms); 1 with 2 axes, where model "gestures" takes 3.', failed: false });
    expect(progress.filter((p) => p.op === 'classify').at(-1)).toMatchObject({ done: 3, total: 3, state: 'done' });
    expect(job.running).toBe(false);
    const says = await api.call('samples.query', { filter: { modelSays: ['wave'] } });
    expect(says.samples.map((s) => s.name)).toEqual(['wave.1.cbor']);
    const disagree = await api.call('samples.query', { filter: { modelDisagrees: true } });
    expect(disagree.samples.map((s) => s.name)).toEqual(['wave.2.cbor']);
  });

  it('a cancel from the job bar says what was kept, in the core\'s words', async () => {
    for (let i = 0; i < 5; i++) await add(`idle.${i}.cbor`, 'idle', rows(0.5, 3));
    const job = new JobRunner(api, 'classify');
    const m = new MatchingBulk(api, new JobRunner(api, 'export'), job);
    await m.ask({ type: 'classify', model: 'slow', strideMs: 100 }, { text: 'idle' });
    expect(m.pending?.text).toBe('Classify 5 samples on this computer with model "slow", a window every 100 ms? Each result is kept as it is made.');
    const done = m.confirm();
    await expect.poll(() => job.progress?.done ?? 0, { timeout: 20_000 }).toBeGreaterThanOrEqual(1);
    job.cancel();
    const r = await done;
    expect(r?.text).toMatch(/^Classifying with model "slow" was cancelled after [1-4] of 5 samples; the [1-4] classified keep their results\.$/);
    expect(job.cancelled).toBe(r?.text);
    const kept = (await api.call('samples.modelSays', { ids: (await api.call('samples.query', { filter: { text: 'idle' } })).samples.map((s) => s.id) })).results.length;
    expect(r?.text).toContain(`the ${kept} classified keep`);
  });

  it('the words for a classify that changed nothing', () => {
    const result: BulkResult = { matched: 2, changed: 0, unchanged: [{ count: 2, code: 'misfit', reason: 'with 1 axis, where model "gestures" takes 3' }], export: null };
    expect(bulk.confirmText({ type: 'classify', model: 'gestures' }, result)).toBe('None of the 2 samples would change. 2 stay as they are: with 1 axis, where model "gestures" takes 3.');
  });
});
