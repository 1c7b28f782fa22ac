import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Sample } from '../../src-main/core/contract/contract.js';
import { createLogger } from '../../src-main/core/log.js';
import { sendLegacy } from '../../src-main/core/upload/ingestion-client.js';
import { startCore, useCleanups } from '../support/core-harness.js';
import { encodeCbor, sensorDoc } from '../support/ingestion-server/fixtures.js';
import { startIngestionServer } from '../support/ingestion-server/server.js';

const KEY = 'ei_test_key';
const cleanups = useCleanups();

async function setup() {
  const srv = await startIngestionServer();
  cleanups.push(() => srv.close());
  // The fixtures here are a few rows each (too short, flat): the platform side is under test, not
  // data quality (test/integration/quality-hold.test.ts), so nothing is held back.
  const h = await startCore(cleanups, { serial: null, emulator: srv, settings: { qualityHold: 'off' } });
  return { srv, ...h };
}

async function until(pred: () => boolean | Promise<boolean>, ms = 10_000) {
  const end = Date.now() + ms;
  while (!(await pred())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

const cbor = (i: number) => new Uint8Array(encodeCbor(sensorDoc([[i, 0], [0, i]])));

describe('core: samples, queue, keys and the platform, through the contract', () => {
  it('a dropped file waits for the key, then uploads, and the UI is told', async () => {
    const { srv, call, events } = await setup();
    const s = await call<Sample>('samples.addFile', { name: 'idle.1.cbor', bytes: cbor(1), category: 'training', queue: true });
    expect(s).toMatchObject({ label: 'idle', state: 'queued', kind: 'sensor' });
    await until(async () => (await call<{ paused: boolean }>('queue.status')).paused);
    const paused = await call<{ pausedReason: string }>('queue.status');
    expect(paused.pausedReason).toContain('No API key');
    expect(srv.samples).toHaveLength(0);

    expect(await call('keys.set', { kind: 'api-key', key: KEY })).toEqual({ apiKey: 'set', hmacKey: 'not set', keychainProblem: null, apiKeySource: { from: 'keychain', name: null, stored: true }, hmacKeySource: { from: 'keychain', name: null, stored: true } });
    await until(() => srv.samples.length === 1);
    await until(async () => (await call<{ samples: Sample[] }>('samples.list', {})).samples[0]!.state === 'uploaded');
    await until(() => events.some(([n, p]) => n === 'samples.changed' && (p as { ids: string[] }).ids.includes(s.id)), 2000); // events are coalesced (≤10/s)
    expect(events.some(([n, p]) => n === 'samples.changed' && (p as { ids: string[] }).ids.includes(s.id))).toBe(true);
    expect(events.some(([n]) => n === 'queue.changed')).toBe(true);
  });

  it('a refused key pauses the queue saying what to do in the app, and saving the right key resumes it by itself', async () => {
    const { srv, call } = await setup();
    await call('keys.set', { kind: 'api-key', key: 'ei_wrong' });
    await call<Sample>('samples.addFile', { name: 'idle.1.cbor', bytes: cbor(1), category: 'training', queue: true });
    await until(async () => (await call<{ paused: boolean }>('queue.status')).paused);
    const { pausedReason } = await call<{ pausedReason: string }>('queue.status');
    expect(pausedReason).toBe('The platform refused the API key (401: Invalid API key). Enter the right key for this project in Settings → API key; uploads resume when it is saved.');
    await call('keys.set', { kind: 'api-key', key: KEY });
    await until(() => srv.samples.length === 1);
    expect((await call<{ paused: boolean }>('queue.status')).paused).toBe(false);
  });

  it('sends as many requests at once as the uploads-in-parallel setting says, changed while running', async () => {
    const { srv, call } = await setup();
    await call('keys.set', { kind: 'api-key', key: KEY });
    srv.setFaults({ delayMs: 300 });
    await expect(call('settings.set', { uploadConcurrency: 0 })).rejects.toThrow(/at least 1/);
    await call('settings.set', { uploadConcurrency: 1 });
    // Different labels set by hand travel in different requests (x-label is per request); labels the
    // file names give would share one, since the platform derives each from its file's name.
    const add = (label: string, i: number) => call('samples.addFile', { name: `take.${i}.cbor`, bytes: cbor(i), category: 'training', label, queue: true });
    await Promise.all(['a', 'b', 'c', 'd'].map((l, i) => add(l, i + 1)));
    await until(() => srv.samples.length === 4);
    expect(srv.maxInFlight).toBe(1);

    srv.reset();
    srv.setFaults({ delayMs: 300 });
    await call('settings.set', { uploadConcurrency: 3 });
    await Promise.all(['e', 'f', 'g', 'h', 'i', 'j'].map((l, i) => add(l, i + 10)));
    await until(() => srv.samples.length === 6);
    expect(srv.maxInFlight).toBe(3);
    expect((await call<{ uploadConcurrency: number }>('settings.get')).uploadConcurrency).toBe(3);
  });

  it('never hands a key back: status only, and nothing secret in logs or events', async () => {
    const { call, events, logLines, keychain } = await setup();
    await call('keys.set', { kind: 'hmac-key', key: 'super-secret-hmac' });
    expect(await call('keys.status')).toEqual({ apiKey: 'not set', hmacKey: 'set', keychainProblem: null, apiKeySource: { from: 'keychain', name: null, stored: true }, hmacKeySource: { from: 'keychain', name: null, stored: true } });
    expect([...keychain.entries.values()]).toContain('super-secret-hmac');
    expect(JSON.stringify(events)).not.toContain('super-secret-hmac');
    expect(logLines.join('')).not.toContain('super-secret-hmac');
    await call('keys.clear', { kind: 'hmac-key' });
    expect(await call('keys.status')).toMatchObject({ hmacKey: 'not set' });
  });

  it('a queued sample is sent with the words it shows: an edit before it goes changes what the platform stores (issue 42)', async () => {
    const { srv, call } = await setup();
    const s = await call<Sample>('samples.addFile', { name: 'idle.1.cbor', bytes: cbor(1), category: 'training', label: 'AAA', queue: true });
    await until(async () => (await call<{ paused: boolean }>('queue.status')).paused); // no key yet: it waits
    // What the sample table shows for a queued sample is the row the queue sends from.
    const shown = (await call<{ samples: Sample[] }>('samples.list', { states: ['queued'] })).samples;
    expect(shown.map((x) => [x.id, x.label, x.category])).toEqual([[s.id, 'AAA', 'training']]);
    await call('samples.update', { ids: [s.id], label: 'BBB', category: 'testing', metadata: { subject: 'bo' } });
    await call('keys.set', { kind: 'api-key', key: KEY });
    await until(() => srv.samples.length === 1);
    expect(srv.samples[0]).toMatchObject({ label: 'BBB', category: 'testing', metadata: { subject: 'bo' } });
  });

  it('uploads.pending lists what waits, in queue order, with the words it will be sent with now, and the count of the rest', async () => {
    const { srv, call } = await setup();
    const add = (name: string, i: number, label?: string | null) => call<Sample>('samples.addFile', { name, bytes: cbor(i), category: 'training', ...(label === undefined ? {} : { label }), queue: true });
    const a = await add('idle.1.cbor', 1); // the file name gives the label
    const b = await add('take.2.cbor', 2, 'AAA');
    const c = await add('take.3.cbor', 3, null);
    await until(async () => (await call<{ paused: boolean }>('queue.status')).paused); // no key: everything waits
    type Pending = { items: Array<Record<string, unknown>>; total: number };
    const first = await call<Pending>('uploads.pending', { limit: 2 });
    expect(first.total).toBe(3);
    expect(first.items).toEqual([
      { id: a.id, name: 'idle.1.cbor', label: 'idle', labelFromName: true, category: 'training', state: 'queued', nextAttemptAt: null, attempts: 0, error: expect.stringContaining('No API key') },
      // Whether it was tried before the queue paused depends on timing: so does its error.
      { id: b.id, name: 'take.2.cbor', label: 'AAA', labelFromName: false, category: 'training', state: 'queued', nextAttemptAt: null, attempts: 0, error: first.items[1]!.error },
    ]);
    expect((await call<Pending>('uploads.pending', {})).items.map((x) => [x.id, x.label])).toEqual([[a.id, 'idle'], [b.id, 'AAA'], [c.id, null]]);
    await expect(call('uploads.pending', { limit: 0 })).rejects.toThrow();

    await call('samples.update', { ids: [b.id], label: 'BBB', category: 'testing' });
    expect((await call<Pending>('uploads.pending', {})).items[1]).toMatchObject({ id: b.id, label: 'BBB', category: 'testing' });
    await call('keys.set', { kind: 'api-key', key: KEY });
    await until(async () => (await call<Pending>('uploads.pending', {})).total === 0);
    expect(srv.samples.find((x) => x.filename.startsWith('take.2'))).toMatchObject({ label: 'BBB', category: 'testing' });
  });

  it('bulk relabels and recategorises local samples, refuses uploaded ones', async () => {
    const { call } = await setup();
    const a = await call<Sample>('samples.addFile', { name: 'a.1.cbor', bytes: cbor(1), category: 'training' });
    const b = await call<Sample>('samples.addFile', { name: 'b.1.cbor', bytes: cbor(2), category: 'training', label: null });
    const { updated } = await call<{ updated: Sample[] }>('samples.update', { ids: [a.id, b.id], label: 'knock', category: 'testing', metadata: { subject: 'ana' } });
    expect(updated.map((s) => [s.label, s.category, s.metadata.subject])).toEqual([['knock', 'testing', 'ana'], ['knock', 'testing', 'ana']]);
    await expect(call('samples.update', { ids: [a.id], label: '' })).rejects.toMatchObject({ code: 'InvalidArguments' });
    await expect(call('samples.addFile', { name: 'notes.txt', bytes: new Uint8Array(3), category: 'training' })).rejects.toThrow(/does not accept \.txt/);
    expect(await call('samples.delete', { ids: [b.id] })).toEqual({ deleted: 1 });
    await expect(call('samples.update', { ids: [b.id], label: 'x' })).rejects.toMatchObject({ code: 'NotFound' });
  });

  it('shows the dataset summary from the platform next to local counts, and moves uploaded samples', async () => {
    const { srv, call } = await setup();
    await call('keys.set', { kind: 'api-key', key: KEY });
    for (let i = 0; i < 3; i++) await call('samples.addFile', { name: `idle.${i}.cbor`, bytes: cbor(i), category: 'training', queue: true });
    await until(() => srv.samples.length === 3);
    await until(async () => (await call<{ total: number }>('samples.list', { states: ['uploaded'] })).total === 3);
    await call('samples.addFile', { name: 'wave.9.cbor', bytes: cbor(9), category: 'testing' });
    const sum = await call<{ platform: { categories: { training: { labels: Array<{ label: string; count: number }> } } }; local: { categories: { testing: { itemCount: number } } }; platformError: null }>('dataset.summary');
    expect(sum.platformError).toBeNull();
    expect(sum.platform.categories.training.labels).toEqual([expect.objectContaining({ label: 'idle', count: 3 })]);
    expect(sum.local.categories.testing.itemCount).toBe(1);

    const uploaded = (await call<{ samples: Sample[] }>('samples.list', { states: ['uploaded'] })).samples[0]!;
    const moved = await call<Sample>('samples.move', { id: uploaded.id, newCategory: 'testing' });
    expect(moved.category).toBe('testing');
    expect(srv.samples.find((s) => s.id === uploaded.platformSampleId)!.category).toBe('testing');
  });

  it('turns management errors into typed errors with the platform text', async () => {
    const { call } = await setup();
    await call('settings.set', { projectId: 999 });
    // Keys belong to a project: the key for project 1 is not used for 999.
    expect((await call<{ platformError: string }>('dataset.summary')).platformError).toContain('No API key');
    await call('keys.set', { kind: 'api-key', key: KEY });
    const sum = await call<{ platformError: string }>('dataset.summary');
    expect(sum.platformError).toContain('Project not found');
    await call('keys.set', { kind: 'api-key', key: 'ei_wrong' });
    expect((await call<{ platformError: string }>('dataset.summary')).platformError).toMatch(/refused the API key/);
  });

  it('uploads structured labels (event marks) through an info.labels part', async () => {
    const { srv, call, core } = await setup();
    await call('keys.set', { kind: 'api-key', key: KEY });
    const s = await call<Sample>('samples.addFile', { name: 'session.1.cbor', bytes: cbor(5), category: 'training', label: null });
    // Structured labels come from captures (event marking); set them as the recorder will.
    const store = (core as unknown as { store?: unknown }).store;
    expect(store).toBeUndefined(); // no back door on the core object: go through SQL of a second store
    const { SampleStore } = await import('../../src-main/core/samples/sample-store.js');
    const info = await call<{ dataDir: string }>('app.info');
    const side = await SampleStore.open(info.dataDir, createLogger(() => {}));
    side.db.prepare('UPDATE samples SET structured_labels = ? WHERE id = ?').run(JSON.stringify([{ startIndex: 0, endIndex: 0, label: 'tap' }, { startIndex: 1, endIndex: 1, label: 'rest' }]), s.id);
    side.close();
    await call('queue.enqueue', { ids: [s.id] });
    await until(() => srv.samples.length === 1);
    expect(srv.samples[0]!.structuredLabels).toEqual([{ startIndex: 0, endIndex: 0, label: 'tap' }, { startIndex: 1, endIndex: 1, label: 'rest' }]);
  });
});

describe('watched folders through the contract', () => {
  it('uploads new files, offers existing ones, and imports them when asked', async () => {
    const { srv, call } = await setup();
    await call('keys.set', { kind: 'api-key', key: KEY });
    const folder = await mkdtemp(join(tmpdir(), 'cd-watched-'));
    await writeFile(join(folder, 'old.1.cbor'), encodeCbor(sensorDoc([[1, 1]])));
    const f = await call<{ id: string }>('watch.add', { path: folder, category: 'testing', label: { mode: 'fixed', label: 'door' }, metadata: { room: 'lab' } });
    await writeFile(join(folder, 'new.1.cbor'), encodeCbor(sensorDoc([[2, 2]])));
    await until(() => srv.samples.length === 1, 15_000);
    expect(srv.samples[0]).toMatchObject({ originalName: 'new.1.cbor', category: 'testing', label: 'door', metadata: { room: 'lab' } });
    const pending = await call<Array<{ path: string }>>('watch.pending', { id: f.id });
    expect(pending.map((p) => p.path)).toEqual([join(folder, 'old.1.cbor')]);
    await call('watch.importPending', { id: f.id });
    await until(() => srv.samples.length === 2, 15_000);
    expect(await call('watch.pending', { id: f.id })).toEqual([]);
  }, 30_000);
});

describe('legacy /data endpoints', () => {
  it('sends a raw CBOR body with x-file-name and reads the stored name', async () => {
    const srv = await startIngestionServer();
    cleanups.push(() => srv.close());
    const r = await sendLegacy({ ingestionUrl: srv.url, apiKey: KEY }, 'testing', { label: 'idle', metadata: {}, boundingBoxes: [], disallowDuplicates: true, addDateId: false },
      { name: 'idle.7.cbor', bytes: encodeCbor(sensorDoc()), contentType: 'application/cbor' });
    expect(r.storedName).toContain('idle.7');
    expect(srv.requests.at(-1)).toMatchObject({ path: '/api/testing/data', headers: expect.objectContaining({ 'x-file-name': 'idle.7.cbor', 'content-type': 'application/cbor' }) });
    await expect(sendLegacy({ ingestionUrl: srv.url, apiKey: KEY }, 'training', { label: 'x', metadata: {}, boundingBoxes: [], disallowDuplicates: true, addDateId: false },
      { name: 'x.1.cbor', bytes: encodeCbor(sensorDoc()), contentType: 'application/cbor' })).rejects.toMatchObject({ kind: 'bad-request', message: expect.stringContaining('already exists') });
  });
});
