import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startIngestionServer } from '../support/ingestion-server/server.js';
import type { EmulatedImpulse, FilesResponse, IngestionServer } from '../support/ingestion-server/server.js';
import { DEFAULT_IMPULSE, slidingWindows } from '../support/ingestion-server/classify-model.js';
import { encodeCbor, sensorDoc } from '../support/ingestion-server/fixtures.js';
import { monoWav } from '../support/audio/wav-bytes.mjs';

// The emulated platform's classify/v2: a deterministic model over the stored sample, shaped as
// the spec's classification result, with the error cases tests need.

const KEY = 'ei_test_key';
let srv: IngestionServer;

beforeAll(async () => {
  srv = await startIngestionServer();
});
afterAll(async () => {
  await srv.close();
});
beforeEach(() => srv.reset());

async function upload(name: string, data: Buffer, category = 'testing', label?: string): Promise<number> {
  const form = new FormData();
  form.append('data', new Blob([new Uint8Array(data)]), name);
  const res = await fetch(`${srv.url}/api/${category}/files`, { method: 'POST', headers: { 'x-api-key': KEY, ...(label ? { 'x-label': label } : {}) }, body: form });
  const body = (await res.json()) as FilesResponse;
  expect(body.success, JSON.stringify(body)).toBe(true);
  return body.files[0]!.sampleId!;
}

async function classify(sampleId: number | string, query = '', key = KEY, project = 1) {
  const res = await fetch(`${srv.managementUrl}/api/${project}/classify/v2/${sampleId}${query}`, { method: 'POST', headers: { 'x-api-key': key } });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** 4 s at 100 Hz, 3 axes: 2 s still, then 2 s of a sine of amplitude 2 on every axis. */
function stillThenWave(): number[][] {
  return Array.from({ length: 400 }, (_, i) => (i < 200 ? [0.02, 0, 0] : [0, 1, 2].map((a) => 2 * Math.sin((2 * Math.PI * (i * 10)) / 250 + a))));
}

/** 16-bit mono PCM sine of `freq` Hz at amplitude `amp` (0…1). */
function toneWav(ms: number, freq: number, amp = 0.5, rate = 16_000): Buffer {
  return monoWav(Math.round((rate * ms) / 1000), rate, (i) => Math.round(amp * 32767 * Math.sin((2 * Math.PI * freq * i) / rate)));
}

const top = (r: Record<string, number>): string => Object.entries(r).filter(([k]) => k !== 'anomaly').sort((a, b) => b[1] - a[1])[0]![0];

const AUDIO_IMPULSE: EmulatedImpulse = {
  id: 7,
  windowSizeMs: 1000,
  windowIncreaseMs: 250,
  accepts: ['audio'],
  axes: null,
  minimumConfidenceRating: 0.7,
  learnBlocks: [{ id: 4, name: 'Keywords', title: 'Classification', feature: 'dominant-hz', labels: { hum: 250, tone: 1000, whistle: 4000 } }],
};

describe('classify/v2 on the emulated platform', () => {
  it('slides the impulse window over a sensor sample and labels each window from its energy', async () => {
    const id = await upload('wave.1.cbor', encodeCbor(sensorDoc(stillThenWave(), 10)), 'testing', 'wave');
    const { status, body } = await classify(id, '?variant=float32');
    expect(status).toBe(200);
    expect(body).toMatchObject({ success: true, windowSizeMs: 1000, windowIncreaseMs: 500, alreadyInDatabase: false });
    expect(body).not.toHaveProperty('warning');
    expect(body.classifications).toHaveLength(1);
    const c = body.classifications[0];
    expect(c.learnBlock).toEqual({ id: 3, type: 'keras', name: 'NN Classifier', dsp: [2], title: 'Classification', createdBy: expect.any(String), createdAt: expect.any(String) });
    expect(c.minimumConfidenceRating).toBe(0.6);
    expect(c.expectedLabels).toEqual([{ label: 'wave', startIndex: 0, endIndex: 399 }]);
    expect(c.intervalMs).toBe(10);
    expect(c.frequencyHz).toBe(100);
    // 4000 ms, windows of 1000 every 500: 0, 500, …, 3000.
    expect(c.result).toHaveLength(7);
    expect(c.result.map(top)).toEqual(['idle', 'idle', 'idle', 'wave', 'wave', 'wave', 'wave']);
    for (const r of c.result as Array<Record<string, number>>) {
      expect(Object.keys(r).sort()).toEqual(['idle', 'shake', 'wave']);
      expect(Object.values(r).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 4);
    }
    expect(c.result[0].idle).toBeGreaterThan(0.99);
    // The sample detail wrapper: the stored sample and its payload.
    expect(body.sample.sample).toMatchObject({ id, filename: 'wave.1.cbor', category: 'testing', label: 'wave', intervalMs: 10, frequency: 100, totalLengthMs: 4000, projectId: 1 });
    expect(body.sample.sample.sensors).toEqual([{ index: 0, name: 's0', units: 'm/s2' }, { index: 1, name: 's1', units: 'm/s2' }, { index: 2, name: 's2', units: 'm/s2' }]);
    expect(body.sample.payload).toMatchObject({ device_type: 'TEST_BOARD', intervalMs: 10, frequencyHz: 100, cropStart: 0, cropEnd: 400 });
    expect(body.sample.payload.values).toHaveLength(400);
    expect(body.sample.totalPayloadLength).toBe(400);
    expect(body.sample.datastreamPayloads).toEqual([]);
  });

  it('says alreadyInDatabase for a sample in the training data (declared: "already in the training database"), not for one classified before; int8 scores are 1/256 steps', async () => {
    const id = await upload('wave.cbor', encodeCbor(sensorDoc(stillThenWave(), 10)));
    const first = await classify(id);
    expect(first.body.alreadyInDatabase).toBe(false);
    expect((await classify(id)).body.alreadyInDatabase).toBe(false);
    const trained = await upload('wave.2.cbor', encodeCbor(sensorDoc(stillThenWave(), 10)), 'training', 'wave');
    expect((await classify(trained, '?variant=float32')).body.alreadyInDatabase).toBe(true);
    for (const r of first.body.classifications[0].result as Array<Record<string, number>>) {
      for (const v of Object.values(r)) expect(Number.isInteger(v * 256)).toBe(true);
    }
    expect((await classify(id, '?variant=int4')).body).toEqual({ success: false, error: 'Invalid variant "int4" (expected int8 or float32)' });
  });

  it('starts a job for a result it has not computed (declared StartJobResponse), reports it running then finished at jobs/{id}/status, then answers the result', async () => {
    const id = await upload('wave.cbor', encodeCbor(sensorDoc(stillThenWave(), 10)));
    srv.setFaults({ classifyJobPolls: 2 });
    const status = async (job: number | string) => (await (await fetch(`${srv.managementUrl}/api/1/jobs/${job}/status`, { headers: { 'x-api-key': KEY } })).json()) as Record<string, any>;
    expect((await classify(id)).body).toEqual({ success: true, id: 1 });
    // Asked again before it finished: nothing declares otherwise, so another job (a client must not do this).
    expect((await classify(id)).body).toEqual({ success: true, id: 2 });
    expect(srv.classifyJobs.map((j) => j.id)).toEqual([1, 2]);
    const running = await status(1);
    expect(running).toEqual({ success: true, job: { id: 1, category: expect.any(String), categoryKey: 'classify-sample', key: expect.any(String), created: expect.any(String), started: expect.any(String), jobNotificationUids: [] } });
    expect((await status(1)).job).not.toHaveProperty('finished');
    expect((await status(1)).job).toMatchObject({ finished: expect.any(String), finishedSuccessful: true });
    const done = await classify(id);
    expect(done.body).toMatchObject({ success: true, windowSizeMs: 1000, alreadyInDatabase: false });
    expect(done.body.classifications[0].result).toHaveLength(7);
    // Computed: answered at once from then on; float32 is a result of its own.
    expect((await classify(id)).body.success).toBe(true);
    expect((await classify(id, '?variant=float32')).body).toEqual({ success: true, id: 3 });
    // Lowering classifyJobPolls finishes running jobs at their next status request; a failed job computes nothing.
    srv.setFaults({ classifyJobPolls: 0, classifyJobFails: true });
    expect((await status(3)).job).toMatchObject({ finished: expect.any(String), finishedSuccessful: false });
    srv.setFaults({ classifyJobPolls: 1 });
    expect((await classify(id, '?variant=float32')).body).toEqual({ success: true, id: 4 });
    expect(await status(99)).toEqual({ success: false, error: 'Job 99 not found' });
    expect((await fetch(`${srv.managementUrl}/api/2/jobs/1/status`, { headers: { 'x-api-key': KEY } }).then((r) => r.json()))).toEqual({ success: false, error: 'Project not found' });
    srv.forgetClassifications();
    srv.setFaults({ classifyJobFails: false });
    expect((await classify(id)).body).toEqual({ success: true, id: 5 });
  });

  it('answers a regression block as {value} per window, with its learnBlock.type', async () => {
    srv.setFaults({ impulse: { ...DEFAULT_IMPULSE, minimumConfidenceRating: 2.5, learnBlocks: [{ id: 6, type: 'keras-regression', name: 'Amplitude', title: 'Regression', feature: 'rms', labels: {} }] } });
    const id = await upload('wave.cbor', encodeCbor(sensorDoc(stillThenWave(), 10)));
    const c = (await classify(id)).body.classifications[0];
    expect(c.learnBlock).toMatchObject({ id: 6, type: 'keras-regression' });
    expect(c.minimumConfidenceRating).toBe(2.5);
    expect(c.result.every((r: Record<string, number>) => Object.keys(r).join() === 'value')).toBe(true);
    expect(c.result.at(-1).value).toBeGreaterThan(1);
  });

  it('labels audio by its dominant frequency and clips the one window of a sample shorter than it', async () => {
    srv.setFaults({ impulse: AUDIO_IMPULSE });
    const id = await upload('tone.wav', toneWav(2500, 1000));
    const { body } = await classify(id, '?impulseId=7');
    expect(body).toMatchObject({ success: true, windowSizeMs: 1000, windowIncreaseMs: 250 });
    // (2500 - 1000) / 250 + 1 windows.
    expect(body.classifications[0].result).toHaveLength(7);
    expect(body.classifications[0].result.map(top)).toEqual(Array(7).fill('tone'));
    expect(body.classifications[0].result[0].tone).toBeGreaterThan(0.95);
    expect(body.sample.sample).toMatchObject({ frequency: 16_000, totalLengthMs: 2500 });
    expect(body.sample.totalPayloadLength).toBe(40_000);
    expect(body.sample.payload.values[1][0]).toBe(Math.round(0.5 * 32767 * Math.sin((2 * Math.PI * 1000) / 16_000)));

    const short = await upload('hum.wav', toneWav(600, 250));
    const s = await classify(short);
    expect(s.body.classifications[0].result.map(top)).toEqual(['hum']);
    expect(slidingWindows(600, 1000, 250)).toEqual([{ startMs: 0, endMs: 600 }]);
    expect(slidingWindows(2500, 1000, 250).at(-1)).toEqual({ startMs: 1500, endMs: 2500 });
  });

  it('gives one classification per learn block, with anomaly entries and the warning when the impulse has them', async () => {
    srv.setFaults({
      impulse: {
        ...DEFAULT_IMPULSE,
        id: 2,
        warning: 'This impulse was trained on data at 62.5 Hz; the sample was resampled',
        learnBlocks: [
          { id: 3, name: 'NN Classifier', title: 'Classification', feature: 'rms', labels: { idle: 0.05, wave: 1.5 } },
          { id: 5, name: 'Motion rate', title: 'Classification', feature: 'dominant-hz', labels: { slow: 1, fast: 10 }, anomaly: true },
        ],
      },
    });
    const id = await upload('wave.cbor', encodeCbor(sensorDoc(stillThenWave(), 10)));
    const { body } = await classify(id);
    expect(body.warning).toBe('This impulse was trained on data at 62.5 Hz; the sample was resampled');
    expect(body.classifications.map((c: any) => c.learnBlock.id)).toEqual([3, 5]);
    const second = body.classifications[1].result as Array<Record<string, number>>;
    expect(second).toHaveLength(7);
    // The sine is 4 Hz: closer to "fast" (10) than to "slow" (1) on a log scale.
    expect(top(second.at(-1)!)).toBe('fast');
    expect(second.every((r) => typeof r.anomaly === 'number' && r.anomaly >= 0)).toBe(true);
  });

  it('answers each failure in the envelope: no impulse, unknown impulse, wrong data, a deleted sample', async () => {
    const sensor = await upload('wave.cbor', encodeCbor(sensorDoc(stillThenWave(), 10)));
    const audio = await upload('tone.wav', toneWav(1500, 1000));
    const fail = (error: string | RegExp) => ({ status: 200, body: { success: false, error: typeof error === 'string' ? error : expect.stringMatching(error) } });

    expect(await classify(sensor, '?impulseId=9')).toEqual(fail('Impulse 9 not found'));
    srv.setFaults({ impulse: { ...AUDIO_IMPULSE } });
    expect(await classify(sensor)).toEqual(fail(/^The impulse cannot classify this sample: it takes audio \(WAV\), and this sample is sensor data$/));
    srv.setFaults({ impulse: { ...DEFAULT_IMPULSE, accepts: ['sensor'], axes: 6 } });
    expect(await classify(sensor)).toEqual(fail('The impulse cannot classify this sample: it takes sensor data with 6 axes, and this sample has 3'));
    expect(await classify(audio)).toEqual(fail(/cannot classify this sample: .*this sample is audio/));

    srv.setFaults({ impulse: null });
    expect(await classify(sensor)).toEqual(fail(/^No trained impulse in this project yet/));

    srv.setFaults({ impulse: DEFAULT_IMPULSE });
    expect((await classify(sensor)).body.success).toBe(true);

    expect(srv.deleteSample(sensor)).toBe(true);
    expect(await classify(sensor)).toEqual(fail('Sample not found'));
    expect(await classify('abc')).toEqual(fail('Sample not found'));
    expect(await classify(audio, '?impulseId=x')).toEqual(fail('Invalid impulseId "x" (expected an integer)'));
  });

  it('checks the key and the project like the other management endpoints, and logs the query', async () => {
    const id = await upload('wave.cbor', encodeCbor(sensorDoc(stillThenWave(), 10)));
    expect(await classify(id, '', 'nope')).toEqual({ status: 401, body: { success: false, error: 'Missing or invalid x-api-key' } });
    expect(await classify(id, '', KEY, 2)).toEqual({ status: 200, body: { success: false, error: 'Project not found' } });
    const get = await fetch(`${srv.managementUrl}/api/1/classify/v2/${id}`, { headers: { 'x-api-key': KEY } });
    expect(get.status).toBe(405);
    await classify(id, '?variant=float32&impulseId=1');
    expect(srv.requests.at(-1)).toMatchObject({ method: 'POST', path: `/v1/api/1/classify/v2/${id}`, query: '?variant=float32&impulseId=1', status: 200 });
  });
});
