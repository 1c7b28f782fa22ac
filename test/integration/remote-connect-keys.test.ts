import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyAcquisitionSignature } from '../../src-main/core/samples/formats/acquisition.js';
import { socatAvailable } from '../support/boards/pty.js';
import { API_KEY, HMAC_KEY, lineBoard, listSamples, newDataDir, startConnect, startPlatform, type Cleanups } from '../support/connect-run.js';

/**
 * Keys given to `capture-desk connect` (flag or environment) and the HMAC key the platform sends
 * with each request are used, and never written: not in the data directory, not in its logs, not
 * in the keychain, not on stdout or stderr.
 */
const cleanups: Cleanups = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The key the platform puts in its sample requests (this project has no HMAC key set here). */
const REQUEST_HMAC_KEY = 'platform-request-hmac-3b9e41d07c';

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await filesUnder(p)));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

async function keychainAccounts(): Promise<string[]> {
  const mod = (await import('keytar')) as { default?: { findCredentials(s: string): Promise<Array<{ account: string }>> } };
  return (await mod.default!.findCredentials('capture-desk')).map((c) => c.account);
}

// Each test runs real processes end to end; a loaded machine (npm test runs files in parallel) needs the room.
describe.skipIf(!socatAvailable())('capture-desk connect: keys', { timeout: 45_000 }, () => {
  it('after sessions with requests, no API key or HMAC key (given or sent by the platform) is in the data dir, its logs, the keychain or the output', async () => {
    const dataDir = await newDataDir();
    // This test is about keys: a reading lost on a loaded machine must not hold the take back (the
    // quality hold has tests of its own), or the session ends without the upload it waits for.
    await mkdir(dataDir, { recursive: true });
    await writeFile(join(dataDir, 'settings.json'), JSON.stringify({ qualityHold: 'off' }));
    const before = await keychainAccounts().catch(() => null);

    // Session 1: keys by flag; the project's HMAC key signs.
    const p = await startPlatform(cleanups, { hmacKey: HMAC_KEY });
    const b = await lineBoard(cleanups);
    const one = await startConnect(cleanups, p, ['--port', b.pty.hostPath, '--device-id', 'bench-keys', '--hmac-key', HMAC_KEY], { dataDir });
    await one.waitEvent((e) => e.event === 'connected');
    expect(await p.startSampling('bench-keys', { label: 'flagged', lengthMs: 500 })).toMatchObject({ success: true });
    await one.waitEvent((e) => e.event === 'sample-finished');
    expect(await one.stop()).toBe(0);

    // Session 2: the API key from the environment, no HMAC key here: the request's key signs.
    p.ingestion.setFaults({ hmacKey: REQUEST_HMAC_KEY });
    const two = await startConnect(cleanups, p, ['--port', b.pty.hostPath, '--device-id', 'bench-keys'], { dataDir, keys: false, env: { CAPTURE_DESK_API_KEY: API_KEY } });
    await two.waitEvent((e) => e.event === 'connected');
    expect(await p.startSampling('bench-keys', { label: 'from-env', lengthMs: 500 })).toMatchObject({ success: true });
    await two.waitEvent((e) => e.event === 'sample-finished');
    expect(await two.stop()).toBe(0);

    // Both used: the samples are on the platform, each signed with the key it should be.
    const [flagged, fromEnv] = [p.ingestion.samples.find((s) => s.label === 'flagged')!, p.ingestion.samples.find((s) => s.label === 'from-env')!];
    expect(verifyAcquisitionSignature(flagged.bytes, HMAC_KEY)).toBe(true);
    expect(verifyAcquisitionSignature(fromEnv.bytes, REQUEST_HMAC_KEY)).toBe(true);
    expect(p.remote.messages.some((m) => m.dir === 'out' && (m.message.sample as { hmacKey?: string })?.hmacKey === REQUEST_HMAC_KEY)).toBe(true);
    expect((await listSamples(dataDir)).map((s) => s.state)).toEqual(['uploaded', 'uploaded']);

    // ...and written nowhere.
    const files = await filesUnder(dataDir);
    const log = files.find((f) => f.endsWith(join('logs', 'connect.log')));
    expect(log, 'connect keeps a log in the data dir').toBeDefined();
    expect(await readFile(log!, 'utf8')).toMatch(/remote management: sample requested/);
    for (const file of files) {
      const bytes = await readFile(file);
      for (const key of [API_KEY, HMAC_KEY, REQUEST_HMAC_KEY]) expect(bytes.includes(key), `${key} in ${file}`).toBe(false);
    }
    for (const out of [one.stderr(), two.stderr(), JSON.stringify(one.events), JSON.stringify(two.events)]) {
      for (const key of [API_KEY, HMAC_KEY, REQUEST_HMAC_KEY]) expect(out).not.toContain(key);
    }
    if (before !== null) expect(await keychainAccounts()).toEqual(before);
  });
});
