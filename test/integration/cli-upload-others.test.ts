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

// Issue 42: a run waiting for samples another process had in flight waited for ever once that process was killed.
describe('capture-desk upload and another process that stopped while sending', () => {
  it('ends with exit 1 and says to run it again, within the request timeout of what was in flight (plus 5 s grace, 0.5 s polling)', async () => {
    const srv = await startIngestionServer();
    cleanups.push(() => srv.close());
    const root = await mkdtemp(join(tmpdir(), 'cd-others-'));
    const caps = join(root, 'caps');
    await mkdir(caps);
    for (let i = 0; i < 2; i++) await writeFile(join(caps, `wave.${i}.cbor`), encodeCbor(sensorDoc([[i, 1], [i, 2]])));
    const data = join(root, 'data');
    // One file per request, slowly answered: the other file stays queued long enough for the second process to claim it.
    srv.setFaults({ delayMs: 2000 });
    const other = spawn(process.execPath, [CLAIM, data], { stdio: ['ignore', 'pipe', 'inherit'] });
    cleanups.push(() => other.kill('SIGKILL'));
    const claimed = new Promise<number>((resolve) => other.stdout.on('data', () => {
      other.kill('SIGKILL');
      resolve(performance.now());
    }));
    const run = runCli(['upload', '--ingestion-url', srv.url, '--api-key', 'ei_test_key', '--data-dir', data, '--concurrency', '1', '--files-per-request', '1', caps], { timeoutMs: 90_000 });
    const killedAt = await claimed;
    const r = await run;
    const waited = performance.now() - killedAt;

    expect(r.code, r.stderr).toBe(1);
    expect(srv.samples).toHaveLength(1);
    expect(r.stdout.trim().split('\n').at(-1)).toBe('1 uploaded, 0 already present, 0 rejected, 1 failed');
    expect(r.stderr).toMatch(/not confirmed .*wave\.\d\.cbor: in flight elsewhere/);
    expect(r.stderr).toContain('This file is being sent by another Capture Desk process, or one that stopped while sending: run the same command again to send it.');
    // The bound: a claimed file of a few bytes could be answered within 30 s; nothing changed after the kill.
    expect(waited).toBeLessThan(requestTimeoutMs(1000) + 5_000 + 3_000);

    srv.setFaults({ delayMs: 0 });
    const again = await runCli(['upload', '--ingestion-url', srv.url, '--api-key', 'ei_test_key', '--data-dir', data, caps]);
    expect(again.code, again.stderr).toBe(0);
    expect(srv.samples).toHaveLength(2);
  }, 120_000);
});
