// app.diagnostics through the core with the real parts: the OS keychain (the private Secret Service
// of test/env.sh), the real port lister plus a socat PTY added by path, the real AudioSupervisor
// listing PulseAudio's test microphone, and the real SQLite index.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Diagnostics } from '../../src-main/core/contract/diagnostics-schema.js';
import { keytarKeychain } from '../../src-main/core/secrets/keychain.js';
import { serialportLister } from '../../src-main/core/serial/serialport-lister.js';
import { openPtyPair } from '../support/boards/pty.js';
import { startCore, useCaptureWorker, useCleanups } from '../support/core-harness.js';
import { encodeCbor, sensorDoc } from '../support/ingestion-server/fixtures.js';

// A project no real one has, so a developer's own keyring is touched only for these two accounts.
const PROJECT = 900_000_000 + Math.floor(Math.random() * 90_000_000);
const API_KEY = `ei_diag_${process.pid}_${Date.now().toString(36)}`;
const HMAC_KEY = `hmac_diag_${process.pid}_${Date.now().toString(36)}`;
const worker = useCaptureWorker();
const cleanups = useCleanups();

async function setup() {
  if (process.platform === 'linux' && !process.env.DBUS_SESSION_BUS_ADDRESS) {
    throw new Error('No Secret Service: run this test through `bash test/env.sh` (npm test does).');
  }
  return startCore(cleanups, { shell: 'electron', ports: serialportLister, keychain: keytarKeychain({ timeoutMs: 10_000 }), audio: { workerPath: worker() } });
}

describe('app.diagnostics (real keychain, ports, microphone and index)', () => {
  it('reports versions, OS, folders, ports, microphones, keychain and counts, and never a key', async () => {
    const { call, dataDir } = await setup();
    await call('settings.set', { projectId: PROJECT });
    await call('keys.set', { kind: 'api-key', key: API_KEY });
    await call('keys.set', { kind: 'hmac-key', key: HMAC_KEY });
    cleanups.push(async () => {
      await call('keys.clear', { kind: 'api-key' }).catch(() => {});
      await call('keys.clear', { kind: 'hmac-key' }).catch(() => {});
    });
    // A port whose path holds the key: the one way a key could reach the report's data.
    const pty = await openPtyPair({ dir: join(await mkdtemp(join(tmpdir(), 'cd-diag-pty-')), API_KEY) });
    cleanups.push(() => pty.close());
    await call('serial.addPath', { path: pty.hostPath });
    await call('samples.addFile', { name: 'idle.1.cbor', bytes: new Uint8Array(encodeCbor(sensorDoc([[1, 2], [3, 4]]))), category: 'training' });

    const out = await call<Diagnostics>('app.diagnostics');
    expect(Diagnostics.parse(out)).toEqual(out);
    const r = out.report;
    expect(r.app).toMatchObject({ name: 'Capture Desk', shell: 'electron' });
    expect(r.versions).toMatchObject({ node: process.versions.node, v8: process.versions.v8, electron: null, chrome: null });
    expect(r.os).toMatchObject({ platform: process.platform, arch: process.arch });
    expect(r.paths).toEqual({ dataDir, logsDir: join(dataDir, 'logs') });
    expect(r.serial.ports).toContainEqual(expect.objectContaining({ path: expect.stringContaining('«redacted»'), addedByPath: true }));
    expect(r.audio, r.audio.problem ?? '').toMatchObject({ available: true, problem: null });
    expect(r.audio.devices.length).toBeGreaterThan(0);
    expect(r.keychain).toEqual({ available: true, apiKey: 'set', hmacKey: 'set', problem: null });
    expect(r.samples.total).toBe(1);
    expect(r.samples.byState.local + r.samples.byState.queued).toBe(1);
    expect(r.settings.projectId).toBe(PROJECT);

    for (const fact of [dataDir, join(dataDir, 'logs'), 'Shell         electron', `Node          ${process.versions.node}`, 'API key set', r.audio.devices[0]!.name]) {
      expect(out.text).toContain(fact);
    }
    const all = JSON.stringify(out);
    expect(all).not.toContain(API_KEY);
    expect(all).not.toContain(HMAC_KEY);
  }, 60_000);

  it('still answers when the shell has no microphones and no key is stored', async () => {
    const { call } = await startCore(cleanups, { ports: serialportLister, keychain: keytarKeychain({ timeoutMs: 10_000 }), serial: null, settings: { projectId: PROJECT + 1 } });
    const out = await call<Diagnostics>('app.diagnostics');
    expect(out.report.audio).toEqual({ available: false, devices: [], problem: 'this shell has no microphone capture', host: null });
    expect(out.report.keychain).toMatchObject({ available: true, apiKey: 'not set', hmacKey: 'not set' });
    expect(out.text).toContain('Microphones: not available');
  }, 30_000);
});
