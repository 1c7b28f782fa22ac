import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../src-main/core/app.js';
import { createLogger } from '../../src-main/core/log.js';
import WebSocket from 'ws';
import { MAX_CALL_BYTES, MAX_FRAME_BYTES } from '../../src-main/core/wire.js';
import { createConnection } from 'node:net';
import { MAX_HTTP_BODY_BYTES, startBrowserShell, type BrowserShell } from '../../src-main/server/browser-shell.js';
import { AuthThrottle, type AuthThrottleOptions } from '../../src-main/server/auth-throttle.js';
import { createSessionToken } from '../../src-main/server/token.js';
import { expectReached, sampleInputs } from '../support/contract-samples.js';
import { fixedPorts } from '../support/fake-hardware.js';
import { memoryKeychain } from '../../src-main/core/secrets/keychain.js';
import { TestWsClient } from '../support/ws-client.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function start(host = '127.0.0.1', throttle: Partial<AuthThrottleOptions> = { free: 1000 }) {
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
  const shell: BrowserShell = await startBrowserShell({ core, rendererDir, token, host, port: 0, log, throttle });
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

/** Opens the printed URL as a browser would: the session cookie (name=value) it sets, and where it redirects. */
async function signIn(url: string): Promise<{ cookie: string; setCookie: string; location: string }> {
  const r = await fetch(url, { redirect: 'manual' });
  expect(r.status).toBe(303);
  const setCookie = r.headers.get('set-cookie') ?? '';
  return { cookie: setCookie.split(';')[0]!, setCookie, location: r.headers.get('location') ?? '' };
}

/** A request on a connection of its own that sends `head` and part of a body, and resolves with the status line. */
function rawRequest(port: number, head: string, body = ''): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ port, host: '127.0.0.1' }, () => socket.write(head + body));
    let got = '';
    socket.on('data', (d) => {
      got += d;
      if (got.includes('\r\n')) {
        resolve(got.split('\r\n')[0]!);
        socket.destroy();
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(got.split('\r\n')[0] ?? ''));
  });
}

describe('browser shell over HTTP', () => {
  it('swaps the printed token for a session cookie and redirects to a URL without it', async () => {
    const { shell, origin, token } = await start();
    expect(shell.url).toBe(`${origin}/${token}/`);
    const { cookie, setCookie, location } = await signIn(shell.url);
    expect(location).toBe('/app/');
    expect(location).not.toContain(token);
    expect(cookie).toMatch(new RegExp(`^capture-desk-${shell.port}=[A-Za-z0-9_-]{43}$`));
    expect(cookie).not.toContain(token);
    const attrs = setCookie.split(';').map((a) => a.trim());
    expect(attrs).toEqual(expect.arrayContaining(['Path=/app/', 'HttpOnly', 'SameSite=Strict']));
    expect(attrs).not.toContain('Secure'); // plain HTTP on loopback: a Secure cookie would not be sent back

    const ok = await fetch(`${origin}/app/`, { headers: { cookie } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('Capture Desk');
    expect(ok.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(ok.headers.get('referrer-policy')).toBe('no-referrer');
    // /app without the slash: relative asset URLs need it.
    const bare = await fetch(`${origin}/app`, { headers: { cookie }, redirect: 'manual' });
    expect([bare.status, bare.headers.get('location')]).toEqual([301, '/app/']);
    // What follows the token is kept: /<token>/x → /app/x.
    expect((await signIn(`${origin}/${token}/index.html?view=1`)).location).toBe('/app/index.html?view=1');

    // The printed URL keeps working: a second browser gets a session of its own.
    const second = await signIn(shell.url);
    expect(second.cookie).not.toBe(cookie);
    expect((await fetch(`${origin}/app/`, { headers: { cookie: second.cookie } })).status).toBe(200);

    const wrongCookie = cookie.replace(/=.*/, `=${'A'.repeat(43)}`);
    for (const [path, headers] of [
      ['/', {}],
      ['/index.html', {}],
      [`/${token.slice(0, -1)}/`, {}],
      [`/${token}x/`, {}],
      ['/ws', {}],
      ['/app/', {}],
      ['/app/index.html', {}],
      ['/app/', { cookie: wrongCookie }],
      ['/index.html', { cookie }], // the cookie opens /app/ only
    ] as const) {
      const r = await fetch(origin + path, { headers, redirect: 'manual' });
      expect(r.status, path).toBe(401);
      const body = await r.text();
      expect(body).toContain('needs its token');
      expect(body).not.toContain('Capture Desk</title>');
    }
  });

  it('logs a refusal with the remote address and never the token', async () => {
    const { origin, token, logLines, shell } = await start();
    await fetch(`${origin}/${token.slice(0, -2)}xx/`);
    await fetch(`${origin}/app/`, { headers: { cookie: `capture-desk-${shell.port}=forged` } });
    await signIn(shell.url);
    const refusals = logLines.filter((l) => l.includes('refused http request'));
    expect(refusals).toHaveLength(2);
    for (const l of refusals) expect(JSON.parse(l)).toMatchObject({ remote: expect.stringMatching(/127\.0\.0\.1/) });
    expect(JSON.parse(refusals[1]!)).toMatchObject({ cookie: expect.stringContaining('unknown') });
    const all = logLines.join('');
    expect(all).toContain('signed in a browser');
    expect(all).not.toContain(token);
    expect(all).not.toContain(token.slice(0, 20));
    expect(all).not.toContain('forged');
  });

  it('does not serve files outside the renderer folder', async () => {
    const { origin, token, shell } = await start();
    const { cookie } = await signIn(shell.url);
    for (const p of ['/app/../secret.txt', '/app/%2e%2e/secret.txt', '/app/..%2fsecret.txt', '/app/%E0%A4%A', `/${token}/../secret.txt`]) {
      const r = await fetch(origin + p, { headers: { cookie } });
      expect([401, 404], p).toContain(r.status);
      expect(await r.text()).not.toContain('outside the renderer');
    }
  });

  it('refuses a request body above the limit without reading it', async () => {
    const { shell, token } = await start();
    // 100 MB announced, 10 bytes sent: the answer comes without the rest.
    const head = `POST /${token}/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${100 * 1024 * 1024}\r\n\r\n`;
    expect(await rawRequest(shell.port, head, '0123456789')).toBe('HTTP/1.1 413 Payload Too Large');
    const chunked = `POST /app/ HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n`;
    expect(await rawRequest(shell.port, chunked)).toBe('HTTP/1.1 413 Payload Too Large');
    expect(MAX_HTTP_BODY_BYTES).toBeLessThanOrEqual(64 * 1024);
  });

  it('slows down repeated bad tokens from one address with a growing delay', async () => {
    const { origin, shell } = await start('127.0.0.1', { free: 2, baseMs: 100, maxMs: 400 });
    const times: number[] = [];
    for (let i = 0; i < 6; i++) {
      const t0 = Date.now();
      expect((await fetch(`${origin}/guess-${i}/`)).status).toBe(401);
      times.push(Date.now() - t0);
    }
    // Two free, then 100, 200, 400, 400 ms.
    expect(times[0]!).toBeLessThan(90);
    expect(times[1]!).toBeLessThan(90);
    expect(times[2]!).toBeGreaterThanOrEqual(90);
    expect(times[3]!).toBeGreaterThanOrEqual(190);
    expect(times[4]!).toBeGreaterThanOrEqual(390);
    // Guesses sent at once are answered one after another, not all after one delay.
    const t0 = Date.now();
    await Promise.all([0, 1, 2].map((i) => fetch(`${origin}/parallel-${i}/`)));
    expect(Date.now() - t0).toBeGreaterThanOrEqual(3 * 390);
    // The right token is never slowed down, and it clears the count.
    const t1 = Date.now();
    await signIn(shell.url);
    expect(Date.now() - t1).toBeLessThan(200);
  });
});

describe('auth throttle', () => {
  it('doubles the delay after the free failures, up to the cap', () => {
    const t = new AuthThrottle({ free: 3, baseMs: 100, maxMs: 1000 });
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => t.delayFor(n))).toEqual([0, 0, 0, 100, 200, 400, 800, 1000]);
  });

  it('drops refusals beyond the waiting limit and forgets an address after a quiet minute', async () => {
    let now = 0;
    const t = new AuthThrottle({ free: 0, baseMs: 20, maxMs: 20, maxWaiting: 2, forgetMs: 60_000, now: () => now });
    const waits = [t.failed('a'), t.failed('a'), t.failed('a')];
    expect(await waits[2]).toBe(false); // a third waiting answer is not given
    expect(await Promise.all(waits.slice(0, 2))).toEqual([true, true]);
    now = 120_000;
    expect(t.delayFor(1)).toBe(20);
    const t0 = Date.now();
    expect(await t.failed('b')).toBe(true); // another address has its own count
    expect(Date.now() - t0).toBeLessThan(200);
  });
});

/** Opens a WebSocket as a browser would (Origin, Cookie) and resolves with the HTTP status of the answer: 101 when accepted. */
function upgrade(url: string, headers: { origin?: string; cookie?: string }): Promise<{ status: number; ws: WebSocket | null }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { ...(headers.origin ? { origin: headers.origin } : {}), headers: headers.cookie ? { cookie: headers.cookie } : {} });
    ws.once('open', () => {
      cleanups.push(() => ws.terminate());
      resolve({ status: 101, ws });
    });
    ws.once('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0, ws: null }));
    ws.once('error', reject);
  });
}

describe('browser shell over WebSocket', () => {
  it('refuses a socket without the right token', async () => {
    const { shell } = await start();
    await expect(TestWsClient.connect(`ws://127.0.0.1:${shell.port}/ws`)).rejects.toThrow(/401/);
    await expect(TestWsClient.connect(`ws://127.0.0.1:${shell.port}/wrong/ws`)).rejects.toThrow(/401/);
  });

  it('takes the session cookie at /app/ws, and only from the page\'s own origin', async () => {
    const { shell, origin, token, logLines } = await start();
    const { cookie } = await signIn(shell.url);
    const ws = `ws://127.0.0.1:${shell.port}/app/ws`;
    const own = await upgrade(ws, { origin, cookie });
    expect(own.status).toBe(101);
    expect(await upgrade(ws, { origin })).toMatchObject({ status: 401 }); // no cookie
    expect(await upgrade(ws, { origin, cookie: cookie.replace(/=.*/, '=nope') })).toMatchObject({ status: 401 });
    // Another site's page, with the cookie or with the token: 403, and said in the log.
    expect(await upgrade(ws, { origin: 'https://evil.example', cookie })).toMatchObject({ status: 403 });
    expect(await upgrade(`ws://127.0.0.1:${shell.port}/${token}/ws`, { origin: 'http://127.0.0.1:1' })).toMatchObject({ status: 403 });
    expect(await upgrade(ws, { origin: 'null', cookie })).toMatchObject({ status: 403 });
    const refused = logLines.filter((l) => l.includes('refused websocket from another origin'));
    expect(refused).toHaveLength(3);
    expect(JSON.parse(refused[0]!)).toMatchObject({ origin: 'https://evil.example', remote: expect.stringMatching(/127\.0\.0\.1/) });
    // The same page reached under another name of this machine is its own origin.
    expect(await upgrade(`ws://localhost:${shell.port}/app/ws`, { origin: `http://localhost:${shell.port}`, cookie })).toMatchObject({ status: 101 });
    expect(logLines.join('')).not.toContain(token);
  });

  it('closes a socket whose frame announces more than the limit, without reading it', async () => {
    const { wsUrl } = await start();
    const ws = new WebSocket(wsUrl);
    cleanups.push(() => ws.terminate());
    await new Promise((r) => ws.once('open', r));
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    // A masked binary frame header announcing 2^40 bytes; nothing follows.
    const header = Buffer.alloc(14);
    header[0] = 0x82;
    header[1] = 0x80 | 127;
    header.writeBigUInt64BE(2n ** 40n, 2);
    (ws as unknown as { _socket: import('node:net').Socket })._socket.write(header);
    expect(await closed).toBe(1009); // "message too big"
    expect(MAX_FRAME_BYTES).toBeLessThan(2 ** 40);
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
    expect((await fetch(`http://127.0.0.1:${shell.port}/${token}/`, { redirect: 'manual' })).status).toBe(303);
    await expect(TestWsClient.connect(`ws://127.0.0.1:${shell.port}/x/ws`)).rejects.toThrow(/401/);
    expect(await (await connect()).call('app.info', {})).toMatchObject({ ok: true });
  });
});
