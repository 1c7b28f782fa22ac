// samples.addPaths, the desktop app's way of adding dropped or picked files: real files on the
// real filesystem (sparse ones for the big sizes), the real core and SQLite index behind dispatch.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../src-main/core/app.js';
import type { AddPathResult, CallResult, QueueStatus } from '../../src-main/core/contract/contract.js';
import { createLogger } from '../../src-main/core/log.js';
import { memoryKeychain } from '../../src-main/core/secrets/keychain.js';
import { fixedPorts } from '../support/fake-hardware.js';
import { encodeCbor, sensorDoc } from '../support/ingestion-server/fixtures.js';

const MB = 1024 * 1024;
let work: string;
let files: string;
let core: Core;

async function call<T>(method: string, input: unknown): Promise<T> {
  const r: CallResult = await core.dispatch(method, input);
  if (!r.ok) throw Object.assign(new Error(r.error.message), { code: r.error.code });
  return r.value as T;
}
const addPaths = async (paths: string[], extra: Record<string, unknown> = {}) =>
  (await call<{ results: AddPathResult[] }>('samples.addPaths', { paths, category: 'training', ...extra })).results;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'cd-add-paths-'));
  files = join(work, 'files');
  mkdirSync(files);
  core = await createCore({
    dataDir: join(work, 'data'),
    shell: 'electron',
    uploads: false,
    hardware: { ports: fixedPorts([]), keychain: memoryKeychain() },
    log: createLogger(() => {}),
  });
  await call('settings.set', { qualityHold: 'off' });
});
afterAll(async () => {
  await core.close();
  rmSync(work, { recursive: true, force: true });
});

describe('samples.addPaths', () => {
  it('adds a sensor file where it lies, labelled from its name, and finds it again instead of adding it twice', async () => {
    const path = join(files, 'idle.01.cbor');
    writeFileSync(path, encodeCbor(sensorDoc()));
    const [first] = await addPaths([path, path]);
    expect(first).toMatchObject({ path, status: 'added', sample: { file: path, label: 'idle', category: 'training', kind: 'sensor', state: 'local' } });
    const again = await addPaths([path], { label: 'other' });
    expect(again).toEqual([{ path, status: 'known', sample: first!.status === 'added' ? first!.sample : null }]);
    const listed = await call<{ total: number }>('samples.list', {});
    expect(listed.total).toBe(1);
  });

  it('accepts a file over the browser shell\'s 32 MB cap, since nothing passes through the renderer', async () => {
    const path = join(files, 'walk.big.mp4');
    writeFileSync(path, '');
    truncateSync(path, 40 * MB); // sparse: 40 MB on paper, nothing on disk
    const [r] = await addPaths([path], { queue: true, label: 'walk' });
    expect(r).toMatchObject({ status: 'added', sample: { bytes: 40 * MB, label: 'walk', state: 'queued' } });
    const q = await call<QueueStatus>('queue.status', {});
    expect(q.counts.queued).toBe(1);
  });

  it('refuses a file over the platform\'s 100 MB per file, naming the limit and what to do', async () => {
    const path = join(files, 'long.mp4');
    writeFileSync(path, '');
    truncateSync(path, 101 * MB);
    const [r] = await addPaths([path]);
    expect(r).toEqual({ path, status: 'refused', reason: expect.stringMatching(/101\.0 MB is over the platform's 100 MB per file; split it first/) });
  });

  it('gives every other path its own clear reason and still adds the good one among them', async () => {
    const good = join(files, 'wave.02.csv');
    writeFileSync(good, 'timestamp,x,y,z\n0,1,2,3\n10,1,2,3\n');
    const notes = join(files, 'notes.txt');
    writeFileSync(notes, 'hello');
    const labels = join(files, 'info.labels');
    writeFileSync(labels, '{}');
    const fifo = join(files, 'pipe.csv');
    execFileSync('mkfifo', [fifo]);
    const folder = join(files, 'sub');
    mkdirSync(folder);
    const missing = join(files, 'gone.cbor');
    const results = await addPaths(['relative/idle.cbor', notes, labels, fifo, folder, missing, good]);
    const reasons = Object.fromEntries(results.map((r) => [r.path, r.status === 'refused' ? r.reason : r.status]));
    expect(reasons).toEqual({
      'relative/idle.cbor': 'not a full path to a file; drop or pick the file itself',
      [notes]: 'the platform does not accept .txt; use .json, .cbor, .csv, .parquet, .wav, .jpg, .png, .mp4 or .avi',
      [labels]: expect.stringContaining('a labels file (info.labels) is not a sample'),
      [fifo]: 'it is not a regular file (a device, pipe or socket)',
      [folder]: 'it is a folder; add the files in it, or watch the folder under Watched folders',
      [missing]: 'it does not exist any more (moved or deleted?)',
      [good]: 'added',
    });
  });

  it('checks its input like every contract method', async () => {
    await expect(call('samples.addPaths', { paths: [], category: 'training' })).rejects.toMatchObject({ code: 'InvalidArguments' });
    await expect(call('samples.addPaths', { paths: ['/x.cbor'], category: 'nope' })).rejects.toMatchObject({ code: 'InvalidArguments' });
  });
});
