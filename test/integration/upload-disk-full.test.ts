import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { QueueStatus, Sample } from '../../src-main/core/contract/contract.js';
import { createLogger } from '../../src-main/core/log.js';
import { SampleStore } from '../../src-main/core/samples/sample-store.js';
import { UploadQueue } from '../../src-main/core/upload/upload-queue.js';
import { runCli } from '../support/cli.js';
import { startCore, useCleanups, type CoreHarnessOptions } from '../support/core-harness.js';
import { encodeCbor, sensorDoc } from '../support/ingestion-server/fixtures.js';
import { startIngestionServer } from '../support/ingestion-server/server.js';
import { fillDisk, mountSmallDisk } from '../support/small-disk.js';

// Issue 13, item 2, for uploads and the index: the data folder's disk fills while the queue works.
// Real parts: a tmpfs mounted here (we run as root), the ingestion emulator, the core, SQLite.
const KEY = 'ei_test_key';
// No skip: a machine that will not mount a tmpfs for us (not root) fails here, saying why, rather
// than passing without testing the capability (as disk-full.test.ts does).
const disk = await mountSmallDisk(8192);
afterAll(() => disk.unmount());

const cleanups = useCleanups();

const cbor = (i: number) => Buffer.from(encodeCbor(sensorDoc([[i, 0], [0, i]])));
const FULL = /^The disk holding the data folder (\S+) is full \(SQLITE_FULL\), so the upload queue cannot record its progress and uploads are paused\. Your samples are safe: no file was deleted, and no sample is marked uploaded unless the platform confirmed it/;

async function until(pred: () => boolean | Promise<boolean>, ms = 15_000) {
  const end = Date.now() + ms;
  while (!(await pred())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function dataDirOnDisk(): Promise<string> {
  const dir = join(disk.dir, `data-${Math.random().toString(36).slice(2)}`);
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Fills the disk; the test's cleanup frees it if the test did not. */
async function fill(leaveKb = 0): Promise<string> {
  const filler = await fillDisk(disk.dir, leaveKb);
  cleanups.push(() => rm(filler, { force: true }));
  return filler;
}

async function startApp(dataDir: string, options: CoreHarnessOptions = {}) {
  const app = await startCore(cleanups, { dataDir, serial: null, ...options });
  const list = async () => (await app.call<{ samples: Sample[] }>('samples.list', {})).samples;
  return { ...app, list };
}

/**
 * Three samples queued in one request; the platform stores them and holds its answer while the
 * test fills the disk, so the queue cannot record what the platform confirmed.
 */
async function fullWhileInFlight() {
  const srv = await startIngestionServer();
  cleanups.push(() => srv.close());
  const dataDir = await dataDirOnDisk();
  const app = await startApp(dataDir, { emulator: srv, settings: { qualityHold: 'off' } });
  const added: Sample[] = [];
  // No key yet: all three wait, then go out together.
  for (let i = 1; i <= 3; i++) added.push(await app.call<Sample>('samples.addFile', { name: `idle.${i}.cbor`, bytes: new Uint8Array(cbor(i)), category: 'training', queue: true }));
  // One left local, to be queued while the disk is full.
  const local = await app.call<Sample>('samples.addFile', { name: 'later.1.cbor', bytes: new Uint8Array(cbor(9)), category: 'training', label: 'later', queue: false });
  srv.setFaults({ delayMs: 1500 });
  await app.call('keys.set', { kind: 'api-key', key: KEY });
  await until(() => srv.samples.length === 3); // stored; the answer is still held back
  const filler = await fill();
  await until(async () => (await app.call<QueueStatus>('queue.status')).paused);
  return { srv, dataDir, app, added, local, filler };
}

describe('uploads when the data folder fills up', () => {
  it('pauses with the reason, marks nothing it could not record, and finishes once space is freed (no second request)', async () => {
    const { srv, dataDir, app, added, local, filler } = await fullWhileInFlight();
    const status = await app.call<QueueStatus>('queue.status');
    expect(status.pausedReason).toMatch(FULL);
    expect(FULL.exec(status.pausedReason!)![1]).toBe(dataDir);
    expect(status.pausedReason).toMatch(/Free some space on that disk; uploads resume by themselves \(checked every 15 s\) or when you resume them\.$/);
    // The UI hears it the way it hears a refused key: a queue.changed event carrying the reason.
    await until(() => app.events.some(([n, p]) => n === 'queue.changed' && FULL.test((p as QueueStatus).pausedReason ?? '')), 3000);
    // Confirmed by the platform, but not recordable: neither uploaded nor failed, still in flight.
    expect((await app.list()).map((s) => [s.name, s.state])).toEqual([['idle.1.cbor', 'uploading'], ['idle.2.cbor', 'uploading'], ['idle.3.cbor', 'uploading'], ['later.1.cbor', 'local']]);

    // Still full: the next action tries again and stays paused, saying the same.
    const again = await app.call<QueueStatus>('queue.resume');
    expect(again.pausedReason).toMatch(FULL);
    // Queueing more while full is refused with the same words, not an internal error.
    await expect(app.call('queue.enqueue', { ids: [local.id] })).rejects.toThrow(FULL);

    await rm(filler);
    await app.call('queue.resume');
    await until(async () => (await app.list()).filter((s) => s.state === 'uploaded').length === 3);
    const done = (await app.list()).filter((s) => s.id !== local.id);
    expect((await app.list()).find((s) => s.id === local.id)!.state).toBe('local');
    expect(done.every((s) => s.platformSampleId !== null && s.note === null)).toBe(true);
    expect((await app.call<QueueStatus>('queue.status')).paused).toBe(false);
    // Each file on the platform exactly once, in the one request that carried them.
    expect(srv.samples.map((s) => s.filename).sort()).toEqual(['idle.1.cbor', 'idle.2.cbor', 'idle.3.cbor']);
    expect(srv.requests.filter((r) => r.path === '/api/training/files')).toHaveLength(1);
    // The files are untouched, and a restart reads the same from the index.
    for (const [i, s] of added.entries()) expect(await readFile(join(dataDir, s.file))).toEqual(cbor(i + 1));
    await app.close();
    const restarted = await startApp(dataDir, { keychain: app.keychain });
    expect((await restarted.list()).map((s) => [s.name, s.state])).toEqual([['idle.1.cbor', 'uploaded'], ['idle.2.cbor', 'uploaded'], ['idle.3.cbor', 'uploaded'], ['later.1.cbor', 'local']]);
    // The sidecars the full disk refused were written once it had room (what a lost index is rebuilt from).
    for (const s of added) {
      const side = JSON.parse(await readFile(join(dataDir, 'samples', `${s.id}.meta.json`), 'utf8')) as { row: { state: string } };
      expect(side.row.state).toBe('uploaded');
    }
  }, 60_000);

  it('after a restart on a full disk, sends the unrecorded ones again with x-disallow-duplicates, and the platform keeps each once', async () => {
    const { srv, dataDir, app, added, filler } = await fullWhileInFlight();
    // The app is closed while the disk is still full: closing must not fail or lose anything.
    await app.close();
    await rm(filler);
    srv.setFaults({ delayMs: 0 });
    const restarted = await startApp(dataDir, { keychain: app.keychain });
    await until(async () => (await restarted.list()).filter((s) => s.state === 'uploaded').length === 3);
    const posts = srv.requests.filter((r) => r.path === '/api/training/files');
    expect(posts).toHaveLength(2);
    expect(posts[1]!.headers['x-disallow-duplicates']).toBe('1');
    expect(srv.samples).toHaveLength(3);
    expect((await restarted.list()).filter((s) => s.state === 'uploaded').every((s) => s.note?.startsWith('Already on the platform'))).toBe(true);
    for (const [i, s] of added.entries()) expect(await readFile(join(dataDir, s.file))).toEqual(cbor(i + 1));
  }, 60_000);

  it('cannot claim a batch on a full disk: sends nothing, keeps the samples queued, and resumes on its timer once space is freed', async () => {
    const srv = await startIngestionServer();
    cleanups.push(() => srv.close());
    const dataDir = await dataDirOnDisk();
    const store = await SampleStore.open(dataDir, createLogger(() => {}));
    cleanups.push(() => store.close());
    for (let i = 1; i <= 4; i++) await store.addBytes({ name: `wave.${i}.cbor`, kind: 'sensor', label: 'wave', category: 'training', queue: true }, cbor(i));
    await store.flushSidecars();
    const statuses: QueueStatus[] = [];
    const q = new UploadQueue({
      store, log: createLogger(() => {}), target: async () => ({ ingestionUrl: srv.url, apiKey: KEY }), storageRetryMs: 300,
      onChange: (status) => statuses.push(status()),
    });
    cleanups.push(() => q.stop());
    const filler = await fill();
    q.start();
    await q.whenIdle();
    expect(q.status()).toMatchObject({ paused: true, pausedReason: expect.stringMatching(FULL) });
    expect(q.status().pausedReason).toMatch(/uploads resume by themselves \(checked every 0 s\)/);
    expect(statuses.some((s) => FULL.test(s.pausedReason ?? ''))).toBe(true);
    expect(srv.requests).toHaveLength(0);
    expect(store.counts()).toMatchObject({ queued: 4, uploading: 0 });

    await rm(filler); // no action: the queue notices by itself
    await until(() => store.counts().uploaded === 4, 10_000);
    expect(q.status()).toMatchObject({ paused: false, pausedReason: null });
    expect(srv.samples.map((s) => s.filename).sort()).toEqual(['wave.1.cbor', 'wave.2.cbor', 'wave.3.cbor', 'wave.4.cbor']);
  }, 30_000);
});

describe('capture-desk upload when the data folder fills up while indexing', () => {
  it('names the folder, exits 1 without a stack trace, claims nothing, and a re-run uploads each file once', async () => {
    const srv = await startIngestionServer();
    cleanups.push(() => srv.close());
    const dataDir = await dataDirOnDisk();
    const src = await mkdtemp(join(tmpdir(), 'cd-upload-src-'));
    cleanups.push(() => rm(src, { recursive: true, force: true }));
    await mkdir(join(src, 'takes'));
    for (let i = 0; i < 800; i++) await writeFile(join(src, 'takes', `knock.${i}.cbor`), cbor(i));
    const args = ['upload', src, '--ingestion-url', srv.url, '--api-key', KEY, '--data-dir', dataDir, '--files-per-request', '50'];
    expect((await runCli(['samples', 'list', '--data-dir', dataDir])).code).toBe(0); // the index exists

    // Too full to even open the index (its -shm file cannot grow): said so, naming it.
    let filler = await fill(24);
    const early = await runCli(args);
    expect(early.code).toBe(1);
    expect(early.stderr).toMatch(new RegExp(`^capture-desk upload: Cannot open the sample index ${dataDir}/samples\\.db: the disk is full \\(SQLITE_IOERR_SHMSIZE\\)\\. Nothing was changed\\. Free some space on that disk, then start again\\.\\n$`));
    await rm(filler);

    // Room to start and index the first chunk (whose first requests go out at once), not the second.
    filler = await fill(400);
    const r = await runCli(args);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`capture-desk upload: Could not index the files in the data folder ${dataDir}: the disk is full (`);
    expect(r.stderr).toContain('No file was changed, and only files the platform confirmed count as uploaded. Free some space on that disk, then run the same command again');
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(r.stdout).toBe(''); // no summary claims anything
    const sentBefore = srv.samples.length;
    expect(sentBefore).toBeGreaterThan(0);
    expect(sentBefore).toBeLessThan(800);

    await rm(filler);
    const again = await runCli(args);
    expect(again.code, again.stderr).toBe(0);
    // What the platform got in the first run is found there (recorded, or answered as a duplicate), never stored twice.
    const [, up, present] = /^(\d+) uploaded, (\d+) already present, 0 rejected, 0 failed$/.exec(again.stdout.trim()) ?? [];
    expect(Number(up) + Number(present)).toBe(800);
    expect(Number(present)).toBeGreaterThanOrEqual(sentBefore);
    // The re-sent ones went with x-disallow-duplicates, which is what kept them single.
    expect(srv.requests.filter((q) => q.path === '/api/training/files').every((q) => q.headers['x-disallow-duplicates'] === '1')).toBe(true);
    expect(new Set(srv.samples.map((s) => s.filename)).size).toBe(800);
    expect(srv.samples).toHaveLength(800);
  }, 90_000);
});
