import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src-main/core/log.js';
import { decodeAcquisition, verifyAcquisitionSignature } from '../../src-main/core/samples/formats/acquisition.js';
import { SampleStore } from '../../src-main/core/samples/sample-store.js';
import { UploadQueue } from '../../src-main/core/upload/upload-queue.js';
import { boardValue } from '../support/boards/line-board-values.mjs';
import { NOISY_BOARD, startBoard } from '../support/boards/board-on-pty.js';
import { useCleanups } from '../support/cleanups.js';
import { runCli } from '../support/cli.js';

// Issue 13: a take whose rate cannot be measured is kept, says so, and is finished afterwards.
const cleanups = useCleanups();

const lastJson = (out: string) => JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, unknown> & { id: string; file: string };

/** The queue as the app runs it, on the CLI's data folder: does it take the sample? */
async function tryQueue(dataDir: string, id: string): Promise<{ queued: number } | { error: string }> {
  const store = await SampleStore.open(dataDir, silentLogger);
  try {
    const queue = new UploadQueue({ store, log: silentLogger, maxAttempts: 1, backoff: { baseMs: 10, maxMs: 10 }, target: async () => ({ ingestionUrl: 'http://127.0.0.1:9', apiKey: 'x' }) });
    try {
      return { queued: queue.enqueueChecked([id]).queued };
    } catch (err) {
      return { error: (err as Error).message };
    } finally {
      queue.queueStore.dequeue([id]);
    }
  } finally {
    await store.close();
  }
}

describe('a take whose sampling rate cannot be measured (numbers for 3 s, then garbage)', () => {
  it('is kept with every row, exits 1 with needs_attention and a note; set-rate finishes, signs and makes it queueable', async () => {
    const { pty } = await startBoard(cleanups, NOISY_BOARD, ['--rate', '100', '--good-ms', '3000']);
    const dataDir = join(await mkdtemp(join(tmpdir(), 'cd-keep-')), 'data');
    const r = await runCli(['record', 'serial', '--port', pty.hostPath, '--length-ms', '6000', '--label', 'loose', '--data-dir', dataDir]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/Could not measure the sampling frequency/);
    expect(r.stderr).toMatch(/rows were kept as sample .*\n {2}capture-desk samples set-rate \S+ --frequency HZ --data-dir/);
    const s = lastJson(r.stdout);
    expect(s).toMatchObject({ label: 'loose', state: 'local', incomplete: true, needs_attention: true, rate_missing: true, interval_ms: null, length_ms: null });
    expect(s.note).toMatch(/rate unknown.*samples set-rate ID --frequency HZ/);
    expect(s.rows as number).toBeGreaterThan(80);
    expect(s.rejected_lines as number).toBeGreaterThan(10);

    // Every kept row is a board row, consecutive: nothing of the good stretch was lost or mixed with noise.
    const v = decodeAcquisition(await readFile(s.file), 'cbor').payload.values;
    expect(v).toHaveLength(s.rows as number);
    const start = Array.from({ length: 1000 }, (_, i) => i).find((i) => [0, 1, 2].every((a) => v[0]![a] === boardValue(i, a)));
    expect(start, 'first kept row is a board row').toBeDefined();
    v.forEach((row, k) => expect(row, `row ${k}`).toEqual([0, 1, 2].map((a) => boardValue(start! + k, a))));

    // Until it has a rate it cannot reach the platform, not even by queueing it on purpose.
    expect(await tryQueue(dataDir, s.id)).toEqual({ error: expect.stringMatching(/no sampling rate yet: give it first .*samples set-rate/) });

    const set = await runCli(['samples', 'set-rate', s.id, '--frequency', '100', '--hmac-key', 'proj-hmac', '--data-dir', dataDir, '--json']);
    expect(set.code, set.stderr).toBe(0);
    const listed = (await runCli(['samples', 'list', '--json', '--data-dir', dataDir])).stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ id: s.id, incomplete: false, interval_ms: 10, frequency_hz: 100, length_ms: (s.rows as number) * 10, rows: s.rows, platform: expect.objectContaining({ note: null }) });
    expect(listed[0]).not.toHaveProperty('rate_missing');
    const bytes = await readFile(s.file);
    const msg = decodeAcquisition(bytes, 'cbor');
    expect(msg.payload.interval_ms).toBe(10);
    expect(msg.payload.values).toEqual(v);
    expect(verifyAcquisitionSignature(bytes, 'proj-hmac')).toBe(true);
    expect(await tryQueue(dataDir, s.id)).toEqual({ queued: 1 });

    // A sample that has its rate is not rewritten.
    const again = await runCli(['samples', 'set-rate', s.id, '--frequency', '50', '--data-dir', dataDir]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already has its rate \(10 ms between rows\)/);
  });

  it('set-rate refuses a missing or impossible frequency with exit 2', async () => {
    for (const args of [['x'], ['x', '--frequency', '0'], ['x', '--frequency', 'fast'], ['--frequency', '100']]) {
      const r = await runCli(['samples', 'set-rate', ...args, '--data-dir', join(await mkdtemp(join(tmpdir(), 'cd-keep-')), 'data')]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/--frequency HZ is required|--frequency must be a number of hertz above 0 and at most 100000; got "(0|fast)"|needs one sample ID/);
    }
  });
});
