import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Classification, ClassifyState, CollectSummary, RecordingStatus, Sample } from '../../src-main/core/contract/contract.js';
import { memoryKeychain, type Keychain } from '../../src-main/core/secrets/keychain.js';
import { lineBoard } from '../support/boards/board-on-pty.js';
import { startCore, useCleanups } from '../support/core-harness.js';
import { seriesOf } from '../support/ingestion-server/classify-data.js';
import { classifySeries, DEFAULT_IMPULSE } from '../support/ingestion-server/classify-model.js';
import { startIngestionServer, type IngestionServer } from '../support/ingestion-server/server.js';

// "Classify each take after upload" in the core: takes recorded from a PTY board through the
// contract, uploaded by the app's queue, classified once the platform confirmed them, the summary
// sent as an event and kept; a restarted core shows the kept result without asking again.

const KEY = 'ei_test_key';
const cleanups = useCleanups();

/** The core on `dataDir` (a restart passes the same folder and keychain), and the classify states it sent. */
async function start(dataDir: string, keychain: Keychain) {
  const app = await startCore(cleanups, { dataDir, keychain });
  const states = () => app.events.filter(([n]) => n === 'samples.classifyState').map(([, p]) => p as ClassifyState);
  return { ...app, states };
}

async function board() {
  return (await lineBoard(cleanups)).pty.hostPath;
}

async function record(app: Awaited<ReturnType<typeof start>>, sourceId: string, label: string, category: string): Promise<string> {
  const st = await app.call<RecordingStatus>('record.start', { sourceIds: [sourceId], label, category, lengthMs: 2500 });
  await expect.poll(() => app.events.some(([n, p]) => n === 'record.state' && (p as RecordingStatus).sessionId === st.sessionId && (p as RecordingStatus).state === 'saved'), { timeout: 10_000 }).toBe(true);
  const saved = app.events.map(([, p]) => p as RecordingStatus).find((p) => p.sessionId === st.sessionId && p.state === 'saved')!;
  return saved.sampleIds[0]!;
}

const classifyRequests = (srv: IngestionServer) => srv.requests.filter((r) => r.path.includes('/classify/v2/'));

describe('core: classify each take after upload', () => {
  it('classifies a board take going to testing once the platform confirmed it, and keeps the result across a restart', async () => {
    const srv = await startIngestionServer();
    cleanups.push(() => srv.close());
    const dataDir = join(await mkdtemp(join(tmpdir(), 'cd-core-classify-')), 'data');
    const keychain = memoryKeychain();
    const app = await start(dataDir, keychain);
    await app.call('settings.set', { ingestionUrl: srv.url, managementUrl: srv.managementUrl, projectId: 1, qualityHold: 'off' });
    await app.call('keys.set', { kind: 'api-key', key: KEY });
    expect(await app.call('samples.classifyOptions')).toEqual({ projectId: 1, variant: 'int8', impulseId: null, afterUpload: 'off' });
    expect(await app.call('samples.setClassifyOptions', { afterUpload: 'testing', variant: 'float32' })).toEqual({ projectId: 1, variant: 'float32', impulseId: null, afterUpload: 'testing' });
    expect(app.events.some(([n, p]) => n === 'settings.changed' && (p as { classifyAfterUpload: string }).classifyAfterUpload === 'testing')).toBe(true);
    // Another setting changed later leaves them as they are.
    await app.call('settings.set', { deviceName: 'bench-01' });
    expect(await app.call('samples.classifyOptions')).toEqual({ projectId: 1, variant: 'float32', impulseId: null, afterUpload: 'testing' });

    const path = await board();
    await app.call('serial.addPath', { path });
    const source = `serial:${path}`;
    await app.call('stream.start', { sourceId: source });
    const testing = await record(app, source, 'wave', 'testing');
    const training = await record(app, source, 'wave', 'training');

    // Uploaded by the queue, then classified: the event carries the summary.
    await expect.poll(() => app.states().some((s) => s.id === testing && s.state === 'done'), { timeout: 15_000 }).toBe(true);
    const done = app.states().find((s) => s.id === testing && s.state === 'done')!;
    expect(done).toMatchObject({ auto: true, variant: 'float32', impulseId: null, error: null });
    expect(app.states().filter((s) => s.id === testing).map((s) => s.state)).toEqual(['classifying', 'done']);
    const { samples } = await app.call<{ samples: Sample[] }>('samples.list', {});
    const t = samples.find((s) => s.id === testing)!;
    expect(t).toMatchObject({ state: 'uploaded', category: 'testing' });
    await expect.poll(async () => (await app.call<{ samples: Sample[] }>('samples.list', {})).samples.find((s) => s.id === training)!.state, { timeout: 10_000 }).toBe('uploaded');
    await new Promise((r) => setTimeout(r, 300));
    // The training take is not classified: the option says testing only.
    expect(classifyRequests(srv)).toHaveLength(1);
    expect(classifyRequests(srv)[0]).toMatchObject({ path: `/v1/api/1/classify/v2/${t.platformSampleId}`, query: '?variant=float32' });
    expect(app.states().some((s) => s.id === training)).toBe(false);

    // The kept result is what the platform's model says for the stored take, window by window.
    const kept = await app.call<Classification>('samples.classification', { id: testing });
    const stored = seriesOf(srv.samples.find((s) => s.id === t.platformSampleId)!)!;
    expect(kept.blocks[0]!.windows.map((w) => w.scores)).toEqual(classifySeries(stored, DEFAULT_IMPULSE, 'float32')[0]);
    kept.blocks[0]!.windows.forEach((w, i) => expect([w.startMs, w.endMs]).toEqual([i * 500, Math.min(i * 500 + 1000, kept.lengthMs)]));
    expect(done.digest!.text).toBe(kept.blocks[0]!.summary.text);
    expect(done.digest!.text).toMatch(/^wave: \d+ of \d+ windows, mean confidence/);
    // Nothing of the local sample changed because of it.
    expect(samples.find((s) => s.id === testing)).toEqual((await app.call<{ samples: Sample[] }>('samples.list', {})).samples.find((s) => s.id === testing));

    const summary = await app.call<CollectSummary>('samples.collectSummary', {});
    expect(summary).toMatchObject({ takes: 2, classifiedTakes: 1, confusions: [], collectMoreOf: [] });
    expect(summary.labels).toEqual([{ label: 'wave', takes: 2, classifiedTakes: 1, windows: kept.blocks[0]!.windows.length, agree: kept.blocks[0]!.windows.length, windowsClassifiedAs: kept.blocks[0]!.windows.length }]);

    // A restart: the result is shown again without a new request, with the time it was made.
    await app.close();
    const again = await start(dataDir, keychain);
    expect(await again.call('samples.classifyOptions')).toEqual({ projectId: 1, variant: 'float32', impulseId: null, afterUpload: 'testing' });
    expect(await again.call<Classification>('samples.classification', { id: testing })).toEqual(kept);
    expect(await again.call('samples.classification', { id: training })).toBeNull();
    expect((await again.call<{ results: Array<{ id: string; classifiedAt: string }> }>('samples.modelSays', { ids: [testing, training] })).results).toEqual([
      expect.objectContaining({ id: testing, classifiedAt: kept.classifiedAt, text: done.digest!.text }),
    ]);
    // All takes this data folder knows, not only this run's.
    expect((await again.call<CollectSummary>('samples.collectSummary', { since: null })).takes).toBe(2);
    expect((await again.call<CollectSummary>('samples.collectSummary', {})).takes).toBe(0);
    await new Promise((r) => setTimeout(r, 300));
    expect(classifyRequests(srv)).toHaveLength(1);

    // Asked from the sample view: a new request, the training take classified too; errors say what to do.
    const asked = await again.call<Classification>('samples.classify', { id: training, variant: 'int8' });
    // Declared: "Whether this sample is already in the training database".
    expect(asked).toMatchObject({ sampleId: training, variant: 'int8', alreadyInDatabase: true });
    srv.deleteSample(t.platformSampleId!);
    await expect(again.call('samples.classify', { id: testing })).rejects.toMatchObject({ code: 'NotFound', details: { reason: 'deleted', platformMessage: 'Sample not found' } });
    expect(await again.call<Classification>('samples.classification', { id: testing })).toEqual(kept);
    expect(again.states().at(-1)).toMatchObject({ id: testing, auto: false, state: 'failed', error: { code: 'NotFound' } });
  }, 60_000);

  it('waits for the classification job the platform started (its status), then asks once more: one job; a cancel stops the wait and the next try waits for that same job', async () => {
    const srv = await startIngestionServer();
    cleanups.push(() => srv.close());
    const app = await start(join(await mkdtemp(join(tmpdir(), 'cd-core-classify-job-')), 'data'), memoryKeychain());
    await app.call('settings.set', { ingestionUrl: srv.url, managementUrl: srv.managementUrl, projectId: 1, qualityHold: 'off' });
    await app.call('keys.set', { kind: 'api-key', key: KEY });
    const path = await board();
    await app.call('serial.addPath', { path });
    await app.call('stream.start', { sourceId: `serial:${path}` });
    const ids = [await record(app, `serial:${path}`, 'wave', 'testing'), await record(app, `serial:${path}`, 'wave', 'testing')];
    for (const id of ids) await expect.poll(async () => (await app.call<{ samples: Sample[] }>('samples.list', {})).samples.find((s) => s.id === id)!.state, { timeout: 10_000 }).toBe('uploaded');
    const statusRequests = () => srv.requests.filter((r) => /^\/v1\/api\/1\/jobs\/\d+\/status$/.test(r.path));

    // The job runs for one status request, then is finished.
    srv.setFaults({ classifyJobPolls: 1 });
    const c = await app.call<Classification>('samples.classify', { id: ids[0] });
    expect(c.blocks[0]!.summary.text).toMatch(/^wave: \d+ of \d+ windows/);
    expect(srv.classifyJobs).toHaveLength(1);
    expect(classifyRequests(srv)).toHaveLength(2);
    expect(statusRequests().map((r) => [r.method, r.path])).toEqual([['GET', '/v1/api/1/jobs/1/status'], ['GET', '/v1/api/1/jobs/1/status']]);
    // Asked, waited (status asked after 1 s, then 2 s), asked once more.
    const first = app.states().filter((s) => s.id === ids[0]);
    expect(first.map((s) => [s.state, s.attempt, s.retryInMs])).toEqual([['classifying', 1, null], ['waiting', 1, 1000], ['waiting', 1, 2000], ['classifying', 2, null], ['done', 2, null]]);
    expect(first[1]!.message).toBe(`Waiting for the platform's classification job 1 for "${(await app.call<{ samples: Sample[] }>('samples.list', {})).samples.find((s) => s.id === ids[0])!.name}"; looking at it again in 1 s.`);

    // A job that does not end: cancelled while waiting; nothing kept, no second job.
    srv.setFaults({ classifyJobPolls: 100 });
    const run = app.call('samples.classify', { id: ids[1] });
    await expect.poll(() => app.states().some((s) => s.id === ids[1] && s.state === 'waiting'), { timeout: 5000 }).toBe(true);
    expect(await app.call('samples.cancelClassify', { id: ids[1] })).toEqual({ cancelled: true });
    await expect(run).rejects.toMatchObject({ code: 'Cancelled', details: { reason: 'cancelled' } });
    expect(app.states().at(-1)).toMatchObject({ id: ids[1], state: 'cancelled' });
    expect(await app.call('samples.classification', { id: ids[1] })).toBeNull();
    expect(srv.classifyJobs).toHaveLength(2);
    expect(classifyRequests(srv)).toHaveLength(3);

    // Classified again once that job ended: its status is asked at once, then the result; still two jobs in all.
    srv.setFaults({ classifyJobPolls: 0 });
    const before = app.states().length;
    expect((await app.call<Classification>('samples.classify', { id: ids[1] })).blocks[0]!.windows.length).toBeGreaterThan(0);
    expect(srv.classifyJobs.map((j) => [j.id, j.finishedSuccessful])).toEqual([[1, true], [2, true]]);
    expect(classifyRequests(srv)).toHaveLength(4);
    expect(app.states().slice(before).map((s) => [s.state, s.retryInMs])).toEqual([['waiting', 0], ['classifying', null], ['done', null]]);
  }, 60_000);
});
