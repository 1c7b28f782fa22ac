import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ClassifyService, type ClassifyServiceDeps } from '../../../src-main/core/classify/classify-service.js';
import type { ClassifyState, Settings } from '../../../src-main/core/contract/contract.js';
import { silentLogger } from '../../../src-main/core/log.js';
import { SampleStore } from '../../../src-main/core/samples/sample-store.js';
import { DEFAULT_SETTINGS } from '../../../src-main/core/settings/settings-store.js';
import { DEFAULT_IMPULSE } from '../../support/ingestion-server/classify-model.js';
import { encodeCbor, sensorDoc } from '../../support/ingestion-server/fixtures.js';
import { startIngestionServer, type FilesResponse, type IngestionServer } from '../../support/ingestion-server/server.js';

// The core's classification service against the emulated platform, with a real sample index:
// retries while a job runs, cancels, keeps results per impulse and variant, says what to do.

const KEY = 'ei_test_key';
let srv: IngestionServer;
beforeAll(async () => {
  srv = await startIngestionServer();
});
afterAll(() => srv.close());
beforeEach(() => srv.reset());
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** 3 s at 100 Hz: 1 s still, 2 s of a sine of amplitude 2 on both axes. */
const take = (): Buffer => encodeCbor(sensorDoc(Array.from({ length: 300 }, (_, i) => (i < 100 ? [0, 0] : [2 * Math.sin(i / 4), 2 * Math.cos(i / 4)])), 10));

function memorySettings(patch: Partial<Settings> = {}) {
  let s: Settings = { ...DEFAULT_SETTINGS, managementUrl: srv.managementUrl, projectId: 1, ...patch };
  return { get: () => s, set: async (p: Partial<Settings>) => (s = { ...s, ...p }) };
}

async function setup(deps: Partial<ClassifyServiceDeps> = {}) {
  const dataDir = await mkdtemp(join(tmpdir(), 'cd-classify-'));
  const store = await SampleStore.open(dataDir, silentLogger);
  cleanups.push(() => store.close());
  const events: ClassifyState[] = [];
  const settings = memorySettings();
  const svc = new ClassifyService({
    store,
    settings,
    management: async () => ({ managementUrl: srv.managementUrl, apiKey: KEY, projectId: 1 }),
    emit: (e) => events.push(e),
    log: silentLogger,
    backoff: { baseMs: 20, maxMs: 80, giveUpMs: 5000 },
    ...deps,
  });
  cleanups.push(() => svc.close());
  /** A local sample, uploaded to the emulator and marked as the upload queue marks it. */
  const uploaded = async (category = 'testing', label = 'wave') => {
    const s = await store.addBytes({ name: `${label}.cbor`, kind: 'sensor', label, category: category as 'testing' }, take());
    const form = new FormData();
    form.append('data', new Blob([new Uint8Array(take())]), `${label}.cbor`);
    const res = (await (await fetch(`${srv.url}/api/${category}/files`, { method: 'POST', headers: { 'x-api-key': KEY, 'x-label': label }, body: form })).json()) as FilesResponse;
    store.db.prepare("UPDATE samples SET state = 'uploaded', platform_sample_id = ?, uploaded_at = ? WHERE id = ?").run(res.files[0]!.sampleId!, new Date().toISOString(), s.id);
    return store.get(s.id);
  };
  return { dataDir, store, svc, events, settings, uploaded };
}

const classifyCalls = () => srv.requests.filter((r) => r.path.includes('/classify/v2/'));

describe('ClassifyService', () => {
  it('classifies an uploaded sample window by window, keeps the result, and never changes the sample', async () => {
    const { svc, store, events, uploaded } = await setup();
    const s = await uploaded();
    const c = await svc.classify(s.id);
    expect(c).toMatchObject({ sampleId: s.id, platformSampleId: s.platformSampleId, impulseId: null, variant: 'int8', lengthMs: 3000, windowSizeMs: 1000, windowIncreaseMs: 500, alreadyInDatabase: false, warning: null });
    expect(c.blocks[0]!.windows.map((w) => [w.startMs, w.endMs, w.label])).toEqual([[0, 1000, 'idle'], [500, 1500, 'wave'], [1000, 2000, 'wave'], [1500, 2500, 'wave'], [2000, 3000, 'wave']]);
    expect(c.blocks[0]!.summary.text).toMatch(/^wave: 4 of 5 windows, mean confidence [01]\.\d\d; 1 window says idle$/);
    expect(classifyCalls().map((r) => r.query)).toEqual(['?variant=int8']);
    expect(events.map((e) => e.state)).toEqual(['classifying', 'done']);
    expect(events[1]).toMatchObject({ id: s.id, auto: false, digest: { id: s.id, text: c.blocks[0]!.summary.text }, error: null });
    expect(store.get(s.id)).toEqual(s);
    expect(svc.classification(s.id)).toEqual(c);
    expect(svc.classification(s.id, { variant: 'float32' })).toBeNull();
    expect(svc.modelSays([s.id, 'other'])).toEqual([expect.objectContaining({ id: s.id, variant: 'int8', text: c.blocks[0]!.summary.text })]);
  });

  it('keeps one result per impulse and variant, across a reopened index, with the time it was made', async () => {
    const { svc, store, dataDir, uploaded } = await setup({ now: () => new Date('2025-03-04T05:06:07.000Z') });
    srv.setFaults({ impulse: { ...DEFAULT_IMPULSE, id: 4 } });
    const s = await uploaded();
    const int8 = await svc.classify(s.id, { impulseId: 4 });
    const f32 = await svc.classify(s.id, { impulseId: 4, variant: 'float32' });
    expect(int8.classifiedAt).toBe('2025-03-04T05:06:07.000Z');
    expect(f32.blocks[0]!.windows[0]!.scores).not.toEqual(int8.blocks[0]!.windows[0]!.scores);
    expect(classifyCalls().map((r) => r.query)).toEqual(['?variant=int8&impulseId=4', '?variant=float32&impulseId=4']);
    await svc.close();
    await store.close();
    const again = await SampleStore.open(dataDir, silentLogger);
    cleanups.push(() => again.close());
    const svc2 = new ClassifyService({ store: again, settings: memorySettings(), management: async () => { throw new Error('not asked'); }, log: silentLogger });
    expect(svc2.classification(s.id, { impulseId: 4 })).toEqual(int8);
    expect(svc2.classification(s.id, { impulseId: 4, variant: 'float32' })).toEqual(f32);
    expect(svc2.classification(s.id)).toBeNull();
    expect(classifyCalls()).toHaveLength(2);
  });

  it('uses the variant and impulse id remembered for the project', async () => {
    const { svc, settings, uploaded } = await setup();
    srv.setFaults({ impulse: { ...DEFAULT_IMPULSE, id: 9 } });
    await svc.setOptions({ variant: 'float32', impulseId: 9, afterUpload: 'all' });
    expect(settings.get().classifyTargets).toEqual({ 1: { variant: 'float32', impulseId: 9 } });
    expect(svc.options()).toEqual({ projectId: 1, variant: 'float32', impulseId: 9, afterUpload: 'all' });
    const s = await uploaded();
    expect(await svc.classify(s.id)).toMatchObject({ variant: 'float32', impulseId: 9 });
    expect(classifyCalls().at(-1)!.query).toBe('?variant=float32&impulseId=9');
    expect(svc.options(2)).toMatchObject({ projectId: 2, variant: 'int8', impulseId: null });
  });

  it('waits for the job the platform started (its status, with growing pauses), then asks once more; one job, and says so', async () => {
    const { svc, events, uploaded } = await setup();
    const s = await uploaded();
    srv.setFaults({ classifyJobPolls: 3 });
    const c = await svc.classify(s.id);
    expect(c.blocks[0]!.windows).toHaveLength(5);
    expect(classifyCalls()).toHaveLength(2);
    expect(srv.classifyJobs).toHaveLength(1);
    expect(srv.requests.filter((r) => r.path === '/v1/api/1/jobs/1/status').map((r) => r.method)).toEqual(['GET', 'GET', 'GET', 'GET']);
    expect(events.map((e) => [e.state, e.attempt, e.retryInMs])).toEqual([
      ['classifying', 1, null], ['waiting', 1, 20], ['waiting', 1, 40], ['waiting', 1, 80], ['waiting', 1, 80], ['classifying', 2, null], ['done', 2, null],
    ]);
    expect(events[1]!.message).toBe('Waiting for the platform\'s classification job 1 for "wave.cbor"; looking at it again in 1 s.');
  });

  it('says a job that ended without a result (finishedSuccessful false)', async () => {
    const { svc, uploaded } = await setup();
    const s = await uploaded();
    srv.setFaults({ classifyJobPolls: 1, classifyJobFails: true });
    await expect(svc.classify(s.id)).rejects.toMatchObject({ code: 'Unavailable', details: { reason: 'job-failed' }, message: expect.stringMatching(/classification job for "wave.cbor" ended without a result \(the platform said: "job 1 finished unsuccessfully"\)/) });
    expect(classifyCalls()).toHaveLength(1);
    // Classified again: a new job, this time finished well.
    srv.setFaults({ classifyJobFails: false });
    expect((await svc.classify(s.id)).blocks[0]!.windows).toHaveLength(5);
    expect(srv.classifyJobs.map((j) => j.finishedSuccessful)).toEqual([false, true]);
  });

  it('can be cancelled while it waits, gives up (Busy) when the job never ends, and waits for that job on the next try rather than starting another', async () => {
    const { svc, events, uploaded } = await setup({ backoff: { baseMs: 200, maxMs: 200, giveUpMs: 600 } });
    const s = await uploaded();
    srv.setFaults({ classifyJobPolls: 100 });
    const run = svc.classify(s.id);
    await expect(svc.classify(s.id)).rejects.toMatchObject({ code: 'Busy' });
    await expect.poll(() => events.some((e) => e.state === 'waiting')).toBe(true);
    expect(svc.cancel(s.id)).toBe(true);
    await expect(run).rejects.toMatchObject({ code: 'Cancelled', details: { reason: 'cancelled' } });
    expect(events.at(-1)).toMatchObject({ state: 'cancelled', error: { code: 'Cancelled' } });
    expect(svc.cancel(s.id)).toBe(false);
    expect(svc.classification(s.id)).toBeNull();

    await expect(svc.classify(s.id)).rejects.toMatchObject({ code: 'Busy', details: { reason: 'job-running' }, message: expect.stringMatching(/still classifying "wave.cbor".*Classify again in a minute/) });
    expect(classifyCalls()).toHaveLength(1);
    expect(srv.classifyJobs).toHaveLength(1);
    // The job ends: the next try looks at it at once, then asks for the result.
    srv.setFaults({ classifyJobPolls: 0 });
    events.length = 0;
    expect((await svc.classify(s.id)).blocks[0]!.windows).toHaveLength(5);
    expect(srv.classifyJobs).toHaveLength(1);
    expect(classifyCalls()).toHaveLength(2);
    expect(events.map((e) => [e.state, e.retryInMs])).toEqual([['waiting', 0], ['classifying', null], ['done', null]]);
  });

  it('says what to do for each failure, in the platform\'s words where it gave some', async () => {
    const { svc, store, uploaded } = await setup();
    const local = await store.addBytes({ name: 'idle.cbor', kind: 'sensor', label: 'idle', category: 'testing' }, take());
    await expect(svc.classify(local.id)).rejects.toMatchObject({ code: 'InvalidArguments', details: { reason: 'not-uploaded' }, message: '"idle.cbor" is not on the platform yet (local): upload it first, then classify it.' });
    await expect(svc.classify('nope')).rejects.toMatchObject({ code: 'NotFound' });

    const s = await uploaded();
    srv.setFaults({ impulse: null });
    await expect(svc.classify(s.id)).rejects.toMatchObject({
      code: 'Unavailable', details: { reason: 'no-impulse', platformMessage: 'No trained impulse in this project yet: design and train an impulse first' },
      message: 'Project 1 has no trained impulse yet (the platform said: "No trained impulse in this project yet: design and train an impulse first"). Design and train an impulse on the platform, then classify again.',
    });
    srv.setFaults({ impulse: { ...DEFAULT_IMPULSE, accepts: ['audio'] } });
    await expect(svc.classify(s.id)).rejects.toMatchObject({ code: 'InvalidArguments', details: { reason: 'cannot-classify' }, message: expect.stringMatching(/^The project's default impulse cannot classify "wave.cbor" \(the platform said: "The impulse cannot classify this sample: it takes audio \(WAV\), and this sample is sensor data"\)/) });
    srv.setFaults({ impulse: DEFAULT_IMPULSE });
    await expect(svc.classify(s.id, { impulseId: 5 })).rejects.toMatchObject({ code: 'NotFound', details: { reason: 'impulse-not-found' } });
    srv.deleteSample(s.platformSampleId!);
    await expect(svc.classify(s.id)).rejects.toMatchObject({ code: 'NotFound', details: { reason: 'deleted', platformMessage: 'Sample not found' }, message: expect.stringMatching(/^"wave.cbor" is no longer on the platform \(sample \d+\).*it was deleted there\. Upload it again/) });
    expect(store.get(s.id)).toEqual(s);

    const badKey = new ClassifyService({ store, settings: memorySettings(), management: async () => ({ managementUrl: srv.managementUrl, apiKey: 'wrong', projectId: 1 }), log: silentLogger });
    const s2 = await uploaded();
    await expect(badKey.classify(s2.id)).rejects.toMatchObject({ code: 'Unauthorized', details: { reason: 'unauthorized' }, message: expect.stringMatching(/refused the API key \(401\)/) });
    const otherProject = new ClassifyService({ store, settings: memorySettings(), management: async () => ({ managementUrl: srv.managementUrl, apiKey: KEY, projectId: 2 }), log: silentLogger });
    await expect(otherProject.classify(s2.id)).rejects.toMatchObject({ code: 'NotFound', details: { reason: 'project-not-found' } });
  });

  it('classifies takes once their upload is confirmed, as the capture option says', async () => {
    const { svc, store, events, settings, uploaded } = await setup();
    const testing = await store.addBytes({ name: 'wave.cbor', kind: 'sensor', label: 'wave', category: 'testing' }, take());
    const training = await store.addBytes({ name: 'idle.cbor', kind: 'sensor', label: 'idle', category: 'training' }, take());
    svc.noteTakes([testing.id, training.id]);
    // Off by default: nothing is classified.
    const first = await uploaded();
    svc.noteTakes([first.id]);
    svc.uploadsChanged();
    await new Promise((r) => setTimeout(r, 100));
    expect(classifyCalls()).toHaveLength(0);

    await settings.set({ classifyAfterUpload: 'testing' });
    const mark = (id: string) => store.db.prepare("UPDATE samples SET state = 'uploaded', platform_sample_id = ? WHERE id = ?").run(first.platformSampleId!, id);
    mark(testing.id);
    mark(training.id);
    svc.uploadsChanged();
    await expect.poll(() => events.some((e) => e.id === testing.id && e.state === 'done')).toBe(true);
    expect(events.find((e) => e.state === 'done')).toMatchObject({ auto: true, digest: { text: expect.stringMatching(/^wave: 4 of 5 windows/) } });
    expect(svc.classification(testing.id)).not.toBeNull();
    expect(svc.classification(training.id)).toBeNull();
    svc.uploadsChanged();
    await new Promise((r) => setTimeout(r, 100));
    expect(classifyCalls()).toHaveLength(1);
    // The view of what was collected in this run, per label.
    const summary = svc.collectSummary({});
    expect(summary).toMatchObject({ takes: 3, classifiedTakes: 1 });
    expect(summary.labels.find((l) => l.label === 'wave')).toMatchObject({ takes: 2, classifiedTakes: 1, windows: 5, agree: 4 });
    expect(summary.confusions).toEqual([{ expected: 'wave', predicted: 'idle', windows: 1 }]);
    expect(svc.collectSummary({ since: '2999-01-01T00:00:00Z' }).takes).toBe(0);
  });
});
