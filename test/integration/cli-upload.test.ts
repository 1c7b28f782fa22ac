import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src-main/core/log.js';
import { SampleStore } from '../../src-main/core/samples/sample-store.js';
import { CLI, runCli } from '../support/cli.js';
import { encodeCbor, sensorDoc, wav, png } from '../support/ingestion-server/fixtures.js';
import { startIngestionServer, type IngestionServer } from '../support/ingestion-server/server.js';

const KEY = 'ei_test_key';
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function world(n = 6) {
  const srv = await startIngestionServer();
  cleanups.push(() => srv.close());
  const root = await mkdtemp(join(tmpdir(), 'cd-upload-'));
  const files = join(root, 'files');
  await mkdir(join(files, 'nested'), { recursive: true });
  for (let i = 0; i < n; i++) await writeFile(join(files, `${i % 2 ? 'idle' : 'wave'}.${i}.cbor`), encodeCbor(sensorDoc([[i, 1], [i, 2]])));
  await writeFile(join(files, 'nested', 'yes.1.wav'), wav(200));
  await writeFile(join(files, 'nested', 'readme.txt'), 'not a sample');
  const args = (...extra: string[]) => ['upload', '--ingestion-url', srv.url, '--api-key', KEY, '--data-dir', join(root, 'data'), ...extra];
  return { srv, root, files, args };
}

describe('capture-desk upload', () => {
  it('uploads a folder recursively, labels from file names, and prints the summary', async () => {
    const { srv, files, args } = await world();
    const r = await runCli(args(files));
    expect(r.stdout.trim().split('\n').at(-1)).toBe('7 uploaded, 0 already present, 0 rejected, 0 failed');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('skipped');
    expect(r.stderr).toContain('readme.txt');
    expect(srv.samples.map((s) => s.label).sort()).toEqual(['idle', 'idle', 'idle', 'wave', 'wave', 'wave', 'yes']);
    expect(srv.requests.filter((q) => q.path.endsWith('/files')).length).toBeLessThan(7);
  });

  it('sends files the app would hold back for data quality: the user asked for exactly these', async () => {
    const { srv, root, files, args } = await world(2);
    await mkdir(join(root, 'data'), { recursive: true });
    await writeFile(join(root, 'data', 'settings.json'), JSON.stringify({ qualityHold: 'all', qualityMinLengthMs: 60_000 }));
    const r = await runCli(args(files)); // two-row, 20 ms files and 200 ms of silence
    expect(r.stdout.trim().split('\n').at(-1)).toBe('3 uploaded, 0 already present, 0 rejected, 0 failed');
    expect(srv.samples).toHaveLength(3);
  });

  it('ends once its work is done: the journal it leaves is read by the next open and folded in by the app', async () => {
    const w = await world();
    const r = await runCli(w.args(w.files));
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n').at(-1)).toBe('7 uploaded, 0 already present, 0 rejected, 0 failed');
    // The process did not wait for SQLite to fold the journal on close: the commits are in samples.db-wal.
    const wal = join(w.root, 'data', 'samples.db-wal');
    expect(statSync(wal).size).toBeGreaterThan(0);
    const store = await SampleStore.open(join(w.root, 'data'), silentLogger);
    expect(store.list({}).map((s) => s.state)).toEqual(Array(7).fill('uploaded'));
    await store.close();
    expect(existsSync(wal) ? statSync(wal).size : 0, 'the app folds the journal when it closes').toBe(0);
  });

  it("counts its progress in this run's files, not in the samples earlier runs left in the data folder", async () => {
    const w = await world();
    expect((await runCli(w.args(w.files))).code).toBe(0);
    const more = join(w.root, 'more');
    await mkdir(more);
    for (let i = 0; i < 3; i++) await writeFile(join(more, `tap.${i}.cbor`), encodeCbor(sensorDoc([[i, 9], [i, 8]])));
    const r = await runCli(w.args(more));
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n').at(-1)).toBe('3 uploaded, 0 already present, 0 rejected, 0 failed');
    const progress = r.stderr.split('\n').filter((l) => /^\d+\/\d+ done/.test(l));
    expect(progress.at(-1)).toBe('3/3 done: 3 uploaded');
    expect(progress.filter((l) => !/^([0-3])\/3 done: \1 uploaded$/.test(l))).toEqual([]);
  });

  it('on a re-run, its progress line counts what the platform had as already present, as the summary does', async () => {
    const w = await world();
    expect((await runCli(w.args(w.files))).code).toBe(0);
    const r = await runCli(w.args(w.files));
    expect(r.stdout.trim().split('\n').at(-1)).toBe('0 uploaded, 7 already present, 0 rejected, 0 failed');
    expect(r.stderr).not.toMatch(/^7\/7 uploaded/m);
    expect(r.stderr.split('\n').filter((l) => /^\d+\/\d+ /.test(l)).at(-1)).toBe('7/7 done: 0 uploaded, 7 already present');
  });

  it('running it again reports everything as already present and sends nothing', async () => {
    const { srv, files, args } = await world();
    await runCli(args(files));
    const before = srv.requests.length;
    const r = await runCli(args(files));
    expect(r.stdout.trim()).toBe('0 uploaded, 7 already present, 0 rejected, 0 failed');
    expect(r.code).toBe(0);
    expect(srv.requests.length).toBe(before);
  });

  it('counts files the platform already has (another data dir) as already present', async () => {
    const { srv, root, files, args } = await world(2);
    await runCli(args(files));
    const r = await runCli(['upload', '--ingestion-url', srv.url, '--api-key', KEY, '--data-dir', join(root, 'other'), files]);
    expect(r.stdout.trim()).toBe('0 uploaded, 3 already present, 0 rejected, 0 failed');
    expect(srv.samples).toHaveLength(3);
  });

  it('lists rejected files with the platform reason and exits non-zero', async () => {
    const { files, args } = await world(2);
    await writeFile(join(files, 'broken.1.json'), '{"not": "a sensor file"}');
    const r = await runCli(args('--category', 'testing', files));
    expect(r.stdout.trim()).toBe('3 uploaded, 0 already present, 1 rejected, 0 failed');
    expect(r.stderr).toMatch(/rejected .*broken\.1\.json: invalid sensor data file/);
    expect(r.code).toBe(1);
  });

  it('passes label, metadata, category and flags as the spec headers', async () => {
    const { srv, files, args } = await world(2);
    const r = await runCli(args('--label', 'knock', '--metadata', '{"subject":"ana","take":3}', '--category', 'post-processing', '--add-date-id', '--allow-duplicates', join(files, 'wave.0.cbor')));
    expect(r.code).toBe(0);
    const q = srv.requests.find((x) => x.path === '/api/post-processing/files')!;
    expect(q.headers['x-label']).toBe('knock');
    expect(JSON.parse(q.headers['x-metadata']!)).toEqual({ subject: 'ana', take: '3' });
    expect(q.headers['x-add-date-id']).toBe('1');
    expect(q.headers['x-disallow-duplicates']).toBeUndefined();
    expect(srv.samples[0]).toMatchObject({ category: 'post-processing', label: 'knock' });
  });

  it('sends x-no-label with --unlabeled', async () => {
    const { srv, files, args } = await world(1);
    expect((await runCli(args('--unlabeled', join(files, 'wave.0.cbor')))).code).toBe(0);
    expect(srv.requests.at(-1)!.headers['x-no-label']).toBe('1');
    expect(srv.samples[0]!.label).toBeNull();
  });

  it('refuses bad bounding boxes with the spec texts before sending anything', async () => {
    const { srv, files, args } = await world(0);
    await writeFile(join(files, 'cup.1.png'), png());
    for (const [value, text] of [
      ['{oops', 'x-bounding-boxes is not valid json'],
      ['{"label":"cup"}', 'x-bounding-boxes is not a valid array'],
      ['[{"label":"cup","x":1,"y":"2","width":3,"height":4}]', 'x-bounding-boxes y is required'],
    ] as const) {
      const r = await runCli(args('--bounding-boxes', value, files));
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(text);
    }
    expect(srv.requests).toHaveLength(0);
  });

  it('stops on a refused key with a clear message and no retry storm', async () => {
    const { srv, files, root } = await world(3);
    const r = await runCli(['upload', '--ingestion-url', srv.url, '--api-key', 'ei_wrong', '--data-dir', join(root, 'data'), files]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('refused the API key');
    expect(r.stdout.trim()).toBe('0 uploaded, 0 already present, 0 rejected, 4 failed');
    expect(srv.requests.length).toBeLessThanOrEqual(4);
  });

  it('reads the key from CAPTURE_DESK_API_KEY and refuses to run without any key', async () => {
    const { srv, files, root } = await world(1);
    const base = ['upload', '--ingestion-url', srv.url, '--data-dir', join(root, 'data'), files];
    const ok = await runCli(base, { env: { CAPTURE_DESK_API_KEY: KEY } });
    expect(ok.code).toBe(0);
    const none = await runCli(base, { env: { CAPTURE_DESK_API_KEY: '', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent' } });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('No API key');
  });

  it('retries through 500s and connection resets', async () => {
    const { srv, files, args } = await world(4);
    srv.setFaults({ fail500Next: 2, resetNext: 1 });
    const r = await runCli(args('--concurrency', '1', files));
    expect(r.stdout.trim()).toBe('5 uploaded, 0 already present, 0 rejected, 0 failed');
    expect(srv.samples).toHaveLength(5);
  });

  it('validates its flags with exit code 2', async () => {
    for (const [extra, text] of [
      [['--category', 'nope', '.'], '--category must be one of'],
      [['--label', 'a', '--unlabeled', '.'], 'exclude each other'],
      [['--metadata', '[1]', '.'], '--metadata must be a JSON object'],
      [['--concurrency', '0', '.'], '--concurrency must be a whole number'],
      [[], 'give at least one file'],
    ] as const) {
      const r = await runCli(['upload', '--api-key', KEY, ...extra]);
      expect(r.code, extra.join(' ')).toBe(2);
      expect(r.stderr).toContain(text);
    }
  });
});

describe('capture-desk upload survives kill -9', () => {
  it('loses no file and uploads none twice across a crash and a re-run', async () => {
    const { srv, files, args } = await world(0);
    const n = 120;
    for (let i = 0; i < n; i++) await writeFile(join(files, `k.${i}.cbor`), encodeCbor(sensorDoc([[i, i], [i, -i]])));
    srv.setFaults({ delayMs: 40 });
    const child = spawn(process.execPath, [CLI, ...args('--concurrency', '2', '--files-per-request', '5', files)], { stdio: 'ignore' });
    // Kill it in the middle of the upload, once some files have landed.
    await waitUntil(() => srv.samples.length >= 20, 20_000);
    child.kill('SIGKILL');
    await new Promise((r) => child.on('exit', r));
    const landed = srv.samples.length;
    expect(landed).toBeLessThan(n + 1); // the crash happened mid-upload
    srv.setFaults({ delayMs: 0 });
    const r = await runCli(args(files));
    expect(r.code).toBe(0);
    const counts = r.stdout.trim().match(/^(\d+) uploaded, (\d+) already present, 0 rejected, 0 failed$/);
    expect(counts).not.toBeNull();
    expect(Number(counts![1]) + Number(counts![2])).toBe(n + 1);
    // Exactly once on the platform: every file, no duplicates.
    expect(srv.samples).toHaveLength(n + 1);
    expect(new Set(srv.samples.map((s) => s.sha256)).size).toBe(n + 1);
  }, 60_000);
});

async function waitUntil(pred: () => boolean, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

export type { IngestionServer };
