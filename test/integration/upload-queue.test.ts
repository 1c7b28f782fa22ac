import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src-main/core/log.js';
import type { NewSample } from '../../src-main/core/samples/new-sample.js';
import { SampleStore } from '../../src-main/core/samples/sample-store.js';
import { UploadQueue, type UploadQueueOptions } from '../../src-main/core/upload/upload-queue.js';
import { encodeCbor, sensorDoc, wav } from '../support/ingestion-server/fixtures.js';
import { startIngestionServer, type IngestionServer } from '../support/ingestion-server/server.js';
import { startSwitchableProxy } from '../support/switchable-proxy.js';

const KEY = 'ei_test_key';
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(queueOpts: Partial<UploadQueueOptions> = {}, server?: IngestionServer) {
  const srv = server ?? (await startIngestionServer());
  if (!server) cleanups.push(() => srv.close());
  const dir = await mkdtemp(join(tmpdir(), 'cd-queue-'));
  const store = await SampleStore.open(dir, createLogger(() => {}));
  cleanups.push(() => store.close());
  let apiKey = KEY;
  const makeQueue = (o: Partial<UploadQueueOptions> = {}) => {
    const q = new UploadQueue({
      store,
      log: createLogger(() => {}),
      target: async () => ({ ingestionUrl: srv.url, apiKey }),
      backoff: { baseMs: 20, maxMs: 100 },
      ...queueOpts,
      ...o,
    });
    cleanups.push(() => q.stop());
    return q;
  };
  const add = (name: string, bytes: Buffer, extra: Partial<NewSample> = {}) =>
    store.addBytes({ name, kind: 'sensor', label: 'idle', category: 'training', queue: true, ...extra }, bytes);
  return { srv, store, makeQueue, add, setKey: (k: string) => (apiKey = k) };
}

const doc = (i: number) => encodeCbor(sensorDoc([[i, i + 1], [i + 2, i + 3]]));

describe('upload queue against the spec emulator', () => {
  it('batches samples that share headers and confirms each file', async () => {
    const { srv, store, makeQueue, add } = await setup();
    for (let i = 0; i < 30; i++) await add(`idle.${i}.cbor`, doc(i));
    for (let i = 0; i < 5; i++) await add(`wave.${i}.cbor`, doc(100 + i), { label: 'wave', metadata: { subject: 'ana' } });
    const q = makeQueue({ maxFilesPerRequest: 10 });
    q.start();
    await q.whenIdle();
    expect(store.counts().uploaded).toBe(35);
    expect(srv.samples).toHaveLength(35);
    const posts = srv.requests.filter((r) => r.path === '/api/training/files');
    expect(posts.length).toBe(4); // 30 idle in 3 requests of 10, 5 wave in 1
    expect(posts.every((r) => r.headers['x-disallow-duplicates'] === '1')).toBe(true);
    expect(srv.samples.filter((s) => s.label === 'wave').every((s) => s.metadata.subject === 'ana')).toBe(true);
    expect(store.list().every((s) => s.platformSampleId !== null && s.uploadedAt !== null)).toBe(true);
  });

  it('marks a file the platform rejects inside a 200 as rejected, with its reason', async () => {
    const { store, makeQueue, add } = await setup();
    await add('good.1.cbor', doc(1));
    const bad = await add('bad.1.cbor', Buffer.from('this is not cbor'));
    const q = makeQueue();
    q.start();
    await q.whenIdle();
    expect(store.get(bad.id)).toMatchObject({ state: 'rejected', error: expect.stringContaining('invalid sensor data file') });
    expect(store.counts()).toMatchObject({ uploaded: 1, rejected: 1 });
  });

  it('treats a duplicate rejection as already uploaded, never as an error', async () => {
    const { srv, store, makeQueue, add } = await setup();
    await add('a.1.cbor', doc(7));
    const q = makeQueue();
    q.start();
    await q.whenIdle();
    const again = await add('a.2.cbor', doc(7));
    q.enqueue([again.id]);
    await q.whenIdle();
    expect(store.get(again.id)).toMatchObject({ state: 'uploaded', error: null, note: expect.stringContaining('Already on the platform') });
    expect(srv.samples).toHaveLength(1);
  });

  it('pauses on 401 without retrying, and resumes with a good key', async () => {
    const { srv, store, makeQueue, add, setKey } = await setup();
    setKey('wrong-key');
    for (let i = 0; i < 3; i++) await add(`k.${i}.cbor`, doc(i));
    const q = makeQueue();
    q.start();
    await q.whenIdle();
    const st = q.status();
    expect(st.paused).toBe(true);
    expect(st.pausedReason).toContain('refused the API key');
    expect(store.counts().queued).toBe(3);
    const tries = srv.requests.length;
    await new Promise((r) => setTimeout(r, 150));
    expect(srv.requests.length).toBe(tries); // no retry loop against a bad key
    setKey(KEY);
    q.resume();
    await q.whenIdle();
    expect(store.counts().uploaded).toBe(3);
  });

  it('retries 500s and connection resets with backoff, then succeeds', async () => {
    const { srv, store, makeQueue, add } = await setup();
    srv.setFaults({ fail500Next: 2, resetNext: 1 });
    const s = await add('r.1.cbor', doc(1));
    const q = makeQueue();
    q.start();
    await q.whenIdle();
    expect(store.get(s.id)).toMatchObject({ state: 'uploaded', attempts: 3 });
    expect(srv.samples).toHaveLength(1);
  });

  it('gives up after maxAttempts and says why', async () => {
    const { srv, store, makeQueue, add } = await setup();
    srv.setFaults({ fail500Next: 100 });
    const s = await add('f.1.cbor', doc(1));
    const q = makeQueue({ maxAttempts: 3 });
    q.start();
    await q.whenIdle();
    expect(store.get(s.id)).toMatchObject({ state: 'failed', attempts: 3, error: expect.stringContaining('gave up after 3 attempts') });
    // The last word is the give-up: nothing in it promises another try.
    expect(store.get(s.id)!.error).not.toMatch(/will retry/i);
  });

  it('says it will retry while it still will', async () => {
    const { srv, store, makeQueue, add } = await setup();
    srv.setFaults({ fail500Next: 1, delayMs: 0 });
    const s = await add('f.1.cbor', doc(1));
    const q = makeQueue({ maxAttempts: 3, backoff: { baseMs: 60_000, maxMs: 60_000 } });
    q.start();
    const deadline = Date.now() + 10_000;
    while (store.get(s.id)!.attempts === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(store.get(s.id)).toMatchObject({ state: 'queued', attempts: 1, error: expect.stringMatching(/internal error \(500.*\)\. Will retry\.$/) });
    await q.stop();
  });

  it('marks every sample of a 400 as rejected with the server text', async () => {
    const { store, makeQueue, add } = await setup();
    const s = await add('v.1.wav', wav(100), { kind: 'audio', category: 'validation' });
    const q = makeQueue();
    q.start();
    await q.whenIdle();
    expect(store.get(s.id)).toMatchObject({ state: 'rejected', error: expect.stringContaining('validation set is not enabled') });
  });

  it('sends x-no-label for unlabeled samples and x-add-date-id when asked', async () => {
    const { srv, makeQueue, add } = await setup();
    await add('n.1.cbor', doc(1), { label: null, addDateId: true });
    const q = makeQueue();
    q.start();
    await q.whenIdle();
    const r = srv.requests.find((x) => x.path === '/api/training/files')!;
    expect(r.headers['x-no-label']).toBe('1');
    expect(r.headers['x-label']).toBeUndefined();
    expect(r.headers['x-add-date-id']).toBe('1');
    expect(srv.samples[0]!.label).toBeNull();
    expect(srv.samples[0]!.filename).not.toBe('n.1.cbor');
  });

  it('resumes after a restart: interrupted uploads are sent again and land once', async () => {
    const { srv, store, makeQueue, add } = await setup();
    for (let i = 0; i < 4; i++) await add(`c.${i}.cbor`, doc(i));
    // A first run that dies after the platform stored the files but before we recorded it.
    const first = makeQueue();
    const taken = first.queueStore.takeBatch(Date.now(), 10, 1e9)!.files;
    expect(taken).toHaveLength(4);
    const { sendFiles } = await import('../../src-main/core/upload/ingestion-client.js');
    await sendFiles({ ingestionUrl: srv.url, apiKey: KEY }, { category: 'training', label: 'idle', metadata: {}, boundingBoxes: [], disallowDuplicates: true, addDateId: false },
      await Promise.all(taken.map(async (t) => ({ name: t.name, bytes: await store.readBytes(t), contentType: 'application/cbor' }))));
    expect(store.counts().uploading).toBe(4);
    const second = makeQueue();
    second.start();
    await second.whenIdle();
    expect(store.counts().uploaded).toBe(4);
    expect(srv.samples).toHaveLength(4);
  });

  it('waits while the platform is unreachable and resumes by itself', async () => {
    const srv = await startIngestionServer();
    cleanups.push(() => srv.close());
    const proxy = await startSwitchableProxy(srv.port);
    cleanups.push(() => proxy.close());
    proxy.setDown(true);
    const { store, makeQueue, add } = await setup({}, { ...srv, url: proxy.url } as IngestionServer);
    const s = await add('o.1.cbor', doc(1));
    const q = makeQueue({ backoff: { baseMs: 50, maxMs: 100 } });
    q.start();
    await new Promise((r) => setTimeout(r, 300));
    expect(q.status().online).toBe(false);
    // Retrying every 50-100 ms: it may be between attempts or inside one, never given up on.
    expect(['queued', 'uploading']).toContain(store.get(s.id).state);
    expect(store.get(s.id).attempts).toBeGreaterThan(0);
    proxy.setDown(false);
    await q.whenIdle();
    expect(store.get(s.id).state).toBe('uploaded');
    expect(q.status().online).toBe(true);
    expect(srv.samples).toHaveLength(1);
  });
});
