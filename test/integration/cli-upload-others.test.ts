import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { requestTimeoutMs } from '../../src-main/core/upload/ingestion-client.js';
import { runCli } from '../support/cli.js';
import { encodeCbor, sensorDoc } from '../support/ingestion-server/fixtures.js';
import { startIngestionServer } from '../support/ingestion-server/server.js';

const CLAIM = fileURLToPath(new URL('../support/claim-in-flight.mjs', import.meta.url));
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function capsAndData(): Promise<{ caps: string; data: string }> {
  const root = await mkdtemp(join(tmpdir(), 'cd-others-'));
  const caps = join(root, 'caps');
  await mkdir(caps);
  for (let i = 0; i < 2; i++) await writeFile(join(caps, `wave.${i}.cbor`), encodeCbor(sensorDoc([[i, 1], [i, 2]])));
  return { caps, data: join(root, 'data') };
}

function claimer(data: string, when: 'while-sending' | 'now') {
  const other = spawn(process.execPath, [CLAIM, data, ...(when === 'now' ? ['now'] : [])], { stdio: ['ignore', 'pipe', 'inherit'] });
  cleanups.push(() => other.kill('SIGKILL'));
  const claimed = new Promise<void>((resolve) => other.stdout.on('data', () => resolve()));
  return { other, claimed };
}

const upload = (srv: { url: string }, data: string, caps: string, extra: string[] = []) =>
  runCli(['upload', '--ingestion-url', srv.url, '--api-key', 'ei_test_key', '--data-dir', data, ...extra, caps], { timeoutMs: 90_000 });

/**
 * Two files, a platform answering each request after 2 s, and another process that claims one of
 * them while this run sends the other (one file a request, one at a time).
 */
async function uploadBesideAClaimer() {
  const srv = await startIngestionServer();
  cleanups.push(() => srv.close());
  const { caps, data } = await capsAndData();
  srv.setFaults({ delayMs: 2000 });
  const { other, claimed } = claimer(data, 'while-sending');
  const run = upload(srv, data, caps, ['--concurrency', '1', '--files-per-request', '1']);
  await claimed;
  return { srv, other, run, data, caps };
}

// Issue 42: a run waiting for samples another process had in flight waited for ever once that
// process was killed; and every start took a live process's in-flight samples into its own queue.
describe('capture-desk upload and another process sending from the same data folder', () => {
  it('one killed while sending: its sample is sent by this run at once, once', async () => {
    // One file per request, slowly answered: the other file stays queued long enough for the second process to claim it.
    const { srv, other, run } = await uploadBesideAClaimer();
    other.kill('SIGKILL');
    const killedAt = performance.now();
    const r = await run;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n').at(-1)).toBe('2 uploaded, 0 already present, 0 rejected, 0 failed');
    expect(srv.samples.map((x) => x.originalName).sort()).toEqual(['wave.0.cbor', 'wave.1.cbor']);
    // Taken back on the next look (0.5 s) and sent (2 s per request here), not after the 30 s bound.
    expect(performance.now() - killedAt).toBeLessThan(15_000);
  }, 120_000);

  it('one alive but never answering: ends with exit 1 and says to run it again, within the request timeout of what was in flight (plus 5 s grace, 0.5 s polling)', async () => {
    const { srv, other, run, data, caps } = await uploadBesideAClaimer();
    const claimedAt = performance.now();
    const r = await run;
    const waited = performance.now() - claimedAt;

    expect(r.code, r.stderr).toBe(1);
    expect(srv.samples).toHaveLength(1);
    expect(r.stdout.trim().split('\n').at(-1)).toBe('1 uploaded, 0 already present, 0 rejected, 1 failed');
    expect(r.stderr).toMatch(/not confirmed .*wave\.\d\.cbor: in flight elsewhere/);
    expect(r.stderr).toContain('This file is being sent by another Capture Desk process, or one that stopped while sending: run the same command again to send it.');
    // The bound: a claimed file of a few bytes could be answered within 30 s; nothing changed after the claim.
    expect(waited).toBeLessThan(requestTimeoutMs(1000) + 5_000 + 3_000);

    other.kill('SIGKILL');
    srv.setFaults({ delayMs: 0 });
    const again = await upload(srv, data, caps);
    expect(again.code, again.stderr).toBe(0);
    expect(srv.samples).toHaveLength(2);
  }, 120_000);

  it('a start leaves a live process\'s in-flight sample to it: not sent a second time', async () => {
    const srv = await startIngestionServer();
    cleanups.push(() => srv.close());
    const { caps, data } = await capsAndData();
    // Both files queued by a run whose key was refused (the queue keeps them), then one claimed by a live process.
    const refused = await runCli(['upload', '--ingestion-url', srv.url, '--api-key', 'WRONG', '--data-dir', data, caps]);
    expect(refused.code).toBe(1);
    const { other, claimed } = claimer(data, 'now');
    await claimed;
    const r = await upload(srv, data, caps);
    // Before claims had owners, this start took the live claim back and sent both.
    expect(r.code, r.stderr).toBe(1);
    expect(srv.samples).toHaveLength(1);
    expect(r.stderr).toMatch(/wave\.\d\.cbor: in flight elsewhere/);
    other.kill('SIGKILL');
    await new Promise((res) => other.once('exit', res));
    const again = await upload(srv, data, caps);
    expect(again.code, again.stderr).toBe(0);
    expect(srv.samples.map((x) => x.originalName).sort()).toEqual(['wave.0.cbor', 'wave.1.cbor']);
  }, 180_000);
});
