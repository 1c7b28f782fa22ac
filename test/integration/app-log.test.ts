// The shells' log (stderr + <data dir>/logs/*.log) with the real core, filesystem and SQLite:
// keys the core holds never reach the file, and a logs folder that cannot be made stops nothing.
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../src-main/core/app.js';
import type { CallResult } from '../../src-main/core/contract/contract.js';
import { openAppLog } from '../../src-main/core/logs/app-log.js';
import { REDACTED } from '../../src-main/core/secrets/redact.js';
import { memoryKeychain } from '../../src-main/core/secrets/keychain.js';
import { fixedPorts } from '../support/fake-hardware.js';

const API_KEY = 'ei_5f0e1d2c3b4a59687766554433221100aabbccddeeff';
const HMAC_KEY = 'b0a1c2d3e4f5a6b7c8d9e0f1a2b3c4d5';
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function start(dataDir: string, keychain = memoryKeychain()) {
  const stderr: string[] = [];
  const appLog = openAppLog({ dataDir, fileName: 'capture-desk.log', base: { shell: 'electron' }, stderr: (t) => stderr.push(t) });
  const core = await createCore({ dataDir, shell: 'electron', hardware: { ports: fixedPorts([]), keychain }, log: appLog.log, secrets: appLog.secrets });
  const call = async (method: string, input: unknown = {}) => {
    const r: CallResult = await core.dispatch(method, input);
    if (!r.ok) throw new Error(r.error.message);
    return r.value;
  };
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await core.close();
    await appLog.close();
  };
  cleanups.push(stop);
  return { appLog, core, call, stderr, stop };
}

/** Logs a key every way a bug might: a field, nested, in a URL, inside an error text, in the message. */
function leak(log: { info(m: string, f?: Record<string, unknown>): void; error(m: string, f?: Record<string, unknown>): void }) {
  log.info('upload request', { apiKey: API_KEY, url: `https://ingestion.example/api?key=${encodeURIComponent(API_KEY)}`, nested: { signing: { hmac: HMAC_KEY } } });
  log.error(`request failed with key ${API_KEY}`, { error: `Error: 401 for x-api-key: ${API_KEY}; hmac ${JSON.stringify(HMAC_KEY)}` });
}

describe('app log: keys never reach the log file', () => {
  it('redacts the configured API and HMAC keys in every field of every line, on stderr and in the file', async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'cd-applog-')), 'data');
    const { appLog, call, stderr, stop } = await start(dataDir);
    await call('keys.set', { kind: 'api-key', key: API_KEY });
    await call('keys.set', { kind: 'hmac-key', key: HMAC_KEY });
    leak(appLog.log);
    await stop();

    const text = await readFile(join(dataDir, 'logs', 'capture-desk.log'), 'utf8');
    const lines = text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.msg)).toEqual(expect.arrayContaining(['core started', 'upload request', `request failed with key ${REDACTED}`]));
    expect(lines.find((l) => l.msg === 'upload request')).toMatchObject({ apiKey: REDACTED, nested: { signing: { hmac: REDACTED } }, shell: 'electron' });
    expect(text).not.toContain(API_KEY);
    expect(text).not.toContain(HMAC_KEY);
    expect(text).not.toContain(encodeURIComponent(API_KEY));
    expect(stderr.join('')).not.toContain(API_KEY);
    expect(stderr.join('')).toContain('upload request');
  });

  it('negative control: without the keys being known, the same lines would carry them', async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'cd-applog-')), 'data');
    const appLog = openAppLog({ dataDir, fileName: 'capture-desk.log', stderr: () => {} });
    leak(appLog.log);
    await appLog.close();
    expect(await readFile(join(dataDir, 'logs', 'capture-desk.log'), 'utf8')).toContain(API_KEY);
  });

  it('appends after a restart, and a key read back from the keychain is redacted in the new run', async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'cd-applog-')), 'data');
    const keychain = memoryKeychain();
    const first = await start(dataDir, keychain);
    await first.call('keys.set', { kind: 'api-key', key: API_KEY });
    await first.stop();
    const second = await start(dataDir, keychain);
    // The new run gets the key the way the app does: from the keychain, here through keys.status.
    await second.call('keys.status');
    leak(second.appLog.log);
    await second.stop();
    const text = await readFile(join(dataDir, 'logs', 'capture-desk.log'), 'utf8');
    expect(text.split('\n').filter((l) => l.includes('"core started"'))).toHaveLength(2);
    expect(text).not.toContain(API_KEY);
  });
});

describe('app log: a logs folder that cannot be made', () => {
  it('is said once on stderr; the core starts and logs to stderr', async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'cd-applog-')), 'data');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(dataDir, { recursive: true });
    await writeFile(join(dataDir, 'logs'), 'not a folder');
    const { appLog, call, stderr } = await start(dataDir);
    expect(await call('settings.get')).toMatchObject({ deviceName: expect.any(String) });
    appLog.log.warn('still logging');
    const said = stderr.filter((l) => l.includes('cannot open the log file'));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(join(dataDir, 'logs', 'capture-desk.log'));
    expect(stderr.some((l) => l.includes('"still logging"'))).toBe(true);
    expect(await readdir(dataDir)).toContain('logs');
  });
});
