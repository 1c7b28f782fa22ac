import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Sample } from '../../src-main/core/contract/contract.js';
import { decodeAcquisition } from '../../src-main/core/samples/formats/acquisition.js';
import { lineBoard } from '../support/boards/board-on-pty.js';
import { useCleanups } from '../support/cleanups.js';
import { CLI, runCli, startServe } from '../support/cli.js';
import { stopChild } from '../support/stop-child.js';
import { TestWsClient } from '../support/ws-client.js';

/**
 * Issue 19 §1: a numeric-line take killed with kill -9 mid-way is recovered with the rate the
 * finished take would have got, not the first lines' estimate the recording's header holds.
 */
const cleanups = useCleanups();

async function dataDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'cd-recovered-rate-'));
  cleanups.push(() => rm(d, { recursive: true, force: true, maxRetries: 5 }));
  return join(d, 'data');
}

/** `record serial` for 30 s, kill -9 `killAfterMs` after it says it records; returns what its header says of the rate. */
async function recordAndKill(host: string, dir: string, killAfterMs: number, args: string[] = []): Promise<{ intervalMs: number; rateMeasured?: boolean }> {
  const rec = spawn(process.execPath, [CLI, 'record', 'serial', '--port', host, '--length-ms', '30000', '--label', 'kill', '--data-dir', dir, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  cleanups.push(() => stopChild(rec));
  let err = '';
  await new Promise<void>((resolve, reject) => {
    rec.stderr!.on('data', (d) => {
      err += d;
      if (/Recording \d+ ms from/.test(err)) resolve();
    });
    rec.once('exit', (code) => reject(new Error(`record serial exited (${code}) before recording: ${err}`)));
  });
  await new Promise((r) => setTimeout(r, killAfterMs));
  await stopChild(rec);
  const [header] = (await readdir(join(dir, 'recordings'))).filter((f) => f.endsWith('.json'));
  return (JSON.parse(await readFile(join(dir, 'recordings', header!), 'utf8')) as { context: { intervalMs: number; rateMeasured?: boolean } }).context;
}

const figures: string[] = [];
afterAll(() => {
  if (process.env['SHOW_RATES']) console.log(figures.join('\n'));
});

describe('kill -9 of `record serial` mid-take: `samples recover` measures the rate again from the rows', () => {
  const cases: Array<[string, number, string[], number[]]> = [
    ['62.5 Hz', 62.5, [], [2500, 8000]],
    ['100 Hz', 100, [], [3000, 10_000]],
    ['1000 Hz', 1000, [], [2000, 6000]],
    ['100 Hz bursty (10 lines every 100 ms)', 100, ['--burst-ms', '100'], [4000, 10_000]],
  ];
  for (const [name, rateHz, args, kills] of cases) {
    for (const killAfterMs of kills) it(`${name}, killed ${killAfterMs} ms in: within 0.5 % of the true interval`, async () => {
      const { pty } = await lineBoard(cleanups, ['--rate', String(rateHz), ...args]);
      const trueMs = 1000 / rateHz;
      const dir = await dataDir();
      const header = await recordAndKill(pty.hostPath, dir, killAfterMs);
      expect(header.rateMeasured).toBe(true);
      const headerMs = header.intervalMs;
      const r = await runCli(['samples', 'recover', '--json', '--data-dir', dir]);
      expect(r.code, r.stderr).toBe(0);
      const s = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as Record<string, unknown> & { file: string; platform: { note: string } };
      const got = s['interval_ms'] as number;
      const err = got / trueMs - 1;
      figures.push(`${name}, kill ${killAfterMs} ms: ${s['rows']} rows; header ${((headerMs / trueMs - 1) * 100).toFixed(2)} %, recovered ${(err * 100).toFixed(3)} %`);
      expect(Math.abs(err), figures.at(-1)).toBeLessThan(0.005);
      expect(s).toMatchObject({ incomplete: true, state: 'local', recovered: true, rate_measured_at_recovery: true });
      expect(s.platform.note).toMatch(/recovered at the next start/);
      expect(decodeAcquisition(await readFile(s.file), 'cbor').payload.interval_ms).toBe(got);
      expect(await readdir(join(dir, 'recordings'))).toEqual([]);
    }, 60_000);
  }

  it('a rate given with --frequency is kept as given', async () => {
    const { pty } = await lineBoard(cleanups, ['--rate', '100']);
    const dir = await dataDir();
    const header = await recordAndKill(pty.hostPath, dir, 1500, ['--frequency', '104']);
    expect(header.intervalMs).toBe(1000 / 104);
    expect(header.rateMeasured).toBeUndefined();
    expect((await readdir(join(dir, 'recordings'))).filter((f) => f.endsWith('.times'))).toEqual([]);
    const r = await runCli(['samples', 'recover', '--json', '--data-dir', dir]);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(s['interval_ms']).toBe(1000 / 104);
    expect(s['rate_measured_at_recovery']).toBeUndefined();
  }, 60_000);
});

describe('kill -9 of the app (browser shell) recording a numeric-line board', () => {
  it('the next start has the sample with the rate measured from its rows', async () => {
    const { pty } = await lineBoard(cleanups, ['--rate', '100']);
    const dir = await dataDir();
    const sourceId = `serial:${pty.hostPath}`;
    const first = await startServe(['--port', '0', '--data-dir', dir]);
    cleanups.push(() => stopChild(first.child));
    const client = await TestWsClient.connect(`${first.url.replace(/^http/, 'ws')}ws`);
    const call = async (method: string, input: unknown) => {
      const r = await client.call(method, input);
      if (!r.ok) throw new Error(r.error.message);
      return r.value;
    };
    await call('stream.start', { sourceId });
    await call('record.start', { sourceIds: [sourceId], label: 'app', category: 'training', queue: false });
    await new Promise((r) => setTimeout(r, 5000));
    client.close();
    await stopChild(first.child);

    const second = await startServe(['--port', '0', '--data-dir', dir]);
    cleanups.push(() => stopChild(second.child));
    const again = await TestWsClient.connect(`${second.url.replace(/^http/, 'ws')}ws`);
    cleanups.push(() => again.close());
    const r = await again.call('samples.list', {});
    if (!r.ok) throw new Error(r.error.message);
    const [s, ...more] = (r.value as { samples: Sample[] }).samples;
    expect(more).toEqual([]);
    expect(s).toMatchObject({ label: 'app', incomplete: true, state: 'local' });
    const err = (s!.extra['interval_ms'] as number) / 10 - 1;
    figures.push(`app, 100 Hz, kill 5000 ms: ${s!.extra['rows']} rows; recovered ${(err * 100).toFixed(3)} %`);
    expect(Math.abs(err), figures.at(-1)).toBeLessThan(0.005);
    expect(s!.extra['rate_measured_at_recovery']).toBe(true);
  }, 60_000);
});
