import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../src-main/core/app.js';
import { createLogger } from '../../src-main/core/log.js';
import { MAX_CALL_BYTES } from '../../src-main/core/wire.js';
import { startBrowserShell, type BrowserShell } from '../../src-main/server/browser-shell.js';
import { createSessionToken } from '../../src-main/server/token.js';
import { expectReached, sampleInputs } from '../support/contract-samples.js';
import { fixedPorts } from '../support/fake-hardware.js';
import { memoryKeychain } from '../../src-main/core/secrets/keychain.js';
import { TestWsClient } from '../support/ws-client.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function start(host = '127.0.0.1') {
  const dir = await mkdtemp(join(tmpdir(), 'cd-shell-'));
  const rendererDir = join(dir, 'renderer');
  await mkdir(rendererDir);
  await writeFile(join(rendererDir, 'index.html'), '<!doctype html><title>Capture Desk</title>');
  await writeFile(join(dir, 'secret.txt'), 'outside the renderer');
  const logLines: string[] = [];
  const log = createLogger((l) => logLines.push(l));
  const core: Core = await createCore({
    dataDir: join(dir, 'data'),
    shell: 'browser',
    hardware: { ports: fixedPorts([{ path: '/dev/ttyACM0', friendlyName: 'Arduino (/dev/ttyACM0)', serialNumber: 'A1' }]), keychain: memoryKeychain() },
    log,
  });
  const token = createSessionToken();
  const shell: BrowserShell = await startBrowserShell({ core, rendererDir, token, host, port: 0, log });
  cleanups.push(() => core.close(), () => shell.close());
  const origin = `http://127.0.0.1:${shell.port}`;
  const wsUrl = `ws://127.0.0.1:${shell.port}/${token}/ws`;
  const connect = async () => {
    const c = await TestWsClient.connect(wsUrl);
    cleanups.push(() => c.close());
    return c;
  };
  return { shell, token, origin, wsUrl, connect, logLines };
}

describe('browser shell over HTTP', () => {
  it('serves the renderer only under the token, with a strict CSP', async () => {
    const { shell, origin, token } = await start();
    expect(shell.url).toBe(`${origin}/${token}/`);
    const ok = await fetch(shell.url);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('Capture Desk');
    expect(ok.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(ok.headers.get('referrer-policy')).toBe('no-referrer');

    for (const path of ['/', '/index.html', `/${token.slice(0, -1)}/`, `/${token}x/`, '/ws']) {
      const r = await fetch(origin + path);
      expect(r.status, path).toBe(401);
      const body = await r.text();
      expect(body).toContain('needs its token');
      expect(body).not.toContain('Capture Desk</title>');
    }
  });

  it('does not serve files outside the renderer folder', async () => {
    const { origin, token } = await start();
    for (const p of [`/${token}/../secret.txt`, `/${token}/%2e%2e/secret.txt`, `/${token}/..%2fsecret.txt`, `/${token}/%E0%A4%A`]) {
      const r = await fetch(origin + p);
      expect([401, 404], p).toContain(r.status);
      expect(await r.text()).not.toContain('outside the renderer');
    }
  });
});

describe('browser shell over WebSocket', () => {
  it('refuses a socket without the right token', async () => {
    const { shell } = await start();
    await expect(TestWsClient.connect(`ws://127.0.0.1:${shell.port}/ws`)).rejects.toThrow(/401/);
    await expect(TestWsClient.connect(`ws://127.0.0.1:${shell.port}/wrong/ws`)).rejects.toThrow(/401/);
  });

  it('reaches every contract method through the one generic binding', async () => {
    const { connect } = await start();
    const c = await connect();
    for (const [method, input] of Object.entries(sampleInputs)) {
      const r = await c.call(method, input);
      expectReached(r, method);
    }
    const sources = await c.call('sources.list', {});
    expect(sources).toMatchObject({ ok: true, value: expect.arrayContaining([expect.objectContaining({ kind: 'simulated' }), expect.objectContaining({ id: 'serial:/dev/ttyACM0', detail: 'S/N A1' })]) });
  });

  it('streams the simulated sensor as batched Float32Arrays, at most ~60 per second', async () => {
    const { connect } = await start();
    const c = await connect();
    await c.call('stream.start', { sourceId: 'simulated:imu', rateHz: 1000 });
    await new Promise((r) => setTimeout(r, 1000));
    await c.call('stream.stop', { sourceId: 'simulated:imu' });
    const batches = c.messages.flatMap((m) => (m.t === 'event' && m.name === 'stream.batch' ? [m.payload as { values: Float32Array; axisCount: number }] : []));
    expect(batches.length).toBeGreaterThan(20);
    expect(batches.length).toBeLessThanOrEqual(66);
    expect(batches[0]!.values).toBeInstanceOf(Float32Array);
    const rows = batches.reduce((n, b) => n + b.values.length / b.axisCount, 0);
    expect(rows).toBeGreaterThan(800);
    expect(c.messages.some((m) => m.t === 'event' && m.name === 'stream.state')).toBe(true);
  });

  it('answers bad input with typed errors and log lines, and keeps serving', async () => {
    const { connect, logLines } = await start();
    const c = await connect();
    c.sendRaw('plain text, not CBOR');
    expect(await c.waitFor((m) => m.t === 'error')).toMatchObject({ error: { code: 'MalformedMessage' } });
    c.sendRaw(Buffer.from([0xff, 0x00, 0x13]));
    expect(await c.call('nope.nothing', {})).toMatchObject({ ok: false, error: { code: 'UnknownMethod' } });
    expect(await c.call('stream.start', { sourceId: 42 })).toMatchObject({ ok: false, error: { code: 'InvalidArguments' } });
    c.sendRaw(Buffer.alloc(MAX_CALL_BYTES + 10, 0x61));
    expect(await c.waitFor((m) => m.t === 'error' && m.error.code === 'MessageTooLarge')).toBeDefined();
    // Still alive and answering.
    expect(await c.call('app.info', {})).toMatchObject({ ok: true, value: { shell: 'browser' } });
    const log = logLines.join('');
    expect(log).toContain('malformed');
    expect(log).toContain('oversized');
    expect(log).toContain('unknown method');
  });

  it('bound to all interfaces, still requires the token on every connection', async () => {
    const { shell, token, connect } = await start('0.0.0.0');
    expect((await fetch(`http://127.0.0.1:${shell.port}/`)).status).toBe(401);
    expect((await fetch(`http://127.0.0.1:${shell.port}/${token}/`)).status).toBe(200);
    await expect(TestWsClient.connect(`ws://127.0.0.1:${shell.port}/x/ws`)).rejects.toThrow(/401/);
    expect(await (await connect()).call('app.info', {})).toMatchObject({ ok: true });
  });
});
