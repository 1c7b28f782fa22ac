import { createHash, generateKeyPairSync } from 'node:crypto';
import { chmod, copyFile, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import type { AppInfo, KeyStatus } from '../../src-main/core/contract/contract.js';
import type { ServerMessage } from '../../src-main/core/wire.js';
import { wireCodec } from '../../src-main/server/cbor.js';
import { assertBuilt, runCli, startServe } from '../support/cli.js';

/**
 * `capture-desk serve` through the built CLI and real parts: the openssl command makes the
 * certificate, Node's TLS stack checks what is presented, the `ws` client speaks WSS, and the
 * files the process leaves behind are read back from disk.
 */

let root: string;
const children: Array<{ kill(sig: NodeJS.Signals): boolean; exitCode: number | null }> = [];
// Each test starts `serve` (a few seconds each) up to three times.
vi.setConfig({ testTimeout: 90_000 });

beforeAll(async () => {
  assertBuilt();
  root = await mkdtemp(join(tmpdir(), 'cd-serve-tls-'));
});
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGTERM');
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

type Serve = Awaited<ReturnType<typeof startServe>>;

async function serve(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Serve & { token: string; fingerprint: () => Promise<string> }> {
  const s = await startServe(['--port', '0', ...args], { env });
  children.push(s.child);
  const token = new URL(s.url).pathname.split('/')[1]!;
  const fingerprint = async () => {
    for (let i = 0; i < 50 && !/SHA-256 fingerprint: /.test(s.stdout()); i++) await new Promise((r) => setTimeout(r, 20));
    return /SHA-256 fingerprint: ([0-9A-F:]+)/.exec(s.stdout())?.[1] ?? '';
  };
  return { ...s, token, fingerprint };
}

async function stop(s: Serve): Promise<void> {
  const exited = new Promise((r) => s.child.once('exit', r));
  s.child.kill('SIGTERM');
  await exited;
}

/** An HTTPS request that accepts the self-signed certificate and reports the one presented. */
function httpsGet(url: string, headers: Record<string, string> = {}): Promise<{ res: IncomingMessage; body: string; peerFingerprint: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { rejectUnauthorized: false, headers }, (res) => {
      const peerFingerprint = (res.socket as TLSSocket).getPeerCertificate().fingerprint256;
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ res, body, peerFingerprint }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A WSS client like the page's: Origin and Cookie as a browser sends them. Resolves with the status (101 = accepted). */
function wss(url: string, headers: { origin?: string; cookie?: string } = {}): Promise<{ status: number; call?: (method: string, input: unknown) => Promise<unknown>; close?: () => void }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { rejectUnauthorized: false, ...(headers.origin ? { origin: headers.origin } : {}), headers: headers.cookie ? { cookie: headers.cookie } : {} });
    let next = 1;
    const waiting = new Map<number, (r: unknown) => void>();
    ws.on('message', (data: Buffer) => {
      const m = wireCodec.decode(data) as ServerMessage;
      if (m.t === 'result') waiting.get(m.id)?.(m.result);
    });
    ws.once('open', () =>
      resolve({
        status: 101,
        call: (method, input) =>
          new Promise((r) => {
            const id = next++;
            waiting.set(id, r);
            ws.send(wireCodec.encode({ t: 'call', id, method, input }));
          }),
        close: () => ws.close(),
      }),
    );
    ws.once('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0 }));
    ws.once('error', reject);
  });
}

async function value<T>(p: Promise<unknown>): Promise<T> {
  const r = (await p) as { ok: boolean; value?: T; error?: { message: string } };
  if (!r.ok) throw new Error(r.error!.message);
  return r.value as T;
}

/** Every file under `dir`, with its bytes. */
async function filesUnder(dir: string): Promise<Array<{ path: string; bytes: Buffer }>> {
  const out: Array<{ path: string; bytes: Buffer }> = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name);
    out.push({ path, bytes: await readFile(path) });
  }
  return out;
}

describe('serve --self-signed', () => {
  it('makes a certificate once (key 0600), serves HTTPS/WSS only with the printed fingerprint, and reuses it after a restart', async () => {
    const dataDir = join(root, 'station');
    const first = await serve(['--self-signed', '--data-dir', dataDir]);
    expect(first.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{43}\/$/);
    const printed = await first.fingerprint();
    expect(printed).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(first.stdout().split('\n')[1]).toBe(`SHA-256 fingerprint: ${printed}`);
    expect(first.stderr()).toContain('Made a self-signed certificate');

    // Kept in the data directory, the private key readable by the owner only.
    const tls = join(dataDir, 'tls');
    expect((await stat(tls)).mode & 0o777).toBe(0o700);
    expect((await stat(join(tls, 'self-signed-key.pem'))).mode & 0o777).toBe(0o600);
    const certPem = await readFile(join(tls, 'self-signed-cert.pem'), 'utf8');
    const der = Buffer.from(certPem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
    expect(createHash('sha256').update(der).digest('hex').toUpperCase().match(/../g)!.join(':')).toBe(printed);

    // The certificate presented is the one printed; signing in gives a Secure cookie.
    const signIn = await httpsGet(first.url);
    expect(signIn.peerFingerprint).toBe(printed);
    expect(signIn.res.statusCode).toBe(303);
    expect(signIn.res.headers.location).toBe('/app/');
    const setCookie = signIn.res.headers['set-cookie']![0]!;
    expect(setCookie).toMatch(/^__Secure-capture-desk-\d+=[A-Za-z0-9_-]{43}; Path=\/app\/; HttpOnly; SameSite=Strict; Secure$/);
    const cookie = setCookie.split(';')[0]!;
    const origin = new URL(first.url).origin;
    const page = await httpsGet(`${origin}/app/`, { cookie });
    expect([page.res.statusCode, page.body]).toEqual([200, expect.stringContaining('<title>Capture Desk</title>')]);

    // Plain HTTP to the HTTPS port gets no answer at all.
    await expect(fetch(first.url.replace('https:', 'http:'))).rejects.toThrow();

    // WSS: the page's own origin with the cookie is in; another origin gets 403, logged.
    const own = await wss(`${origin.replace('https', 'wss')}/app/ws`, { origin, cookie });
    expect(own.status).toBe(101);
    expect(await value<AppInfo>(own.call!('app.info', {}))).toMatchObject({ shell: 'browser', shellWarning: null });
    own.close!();
    expect((await wss(`${origin.replace('https', 'wss')}/app/ws`, { origin: 'https://evil.example', cookie })).status).toBe(403);
    expect((await wss(`${origin.replace('https', 'wss')}/app/ws`, { origin: origin.replace('https', 'http'), cookie })).status).toBe(403);
    expect((await wss(`${origin.replace('https', 'wss')}/app/ws`, { origin })).status).toBe(401);
    await stop(first);

    const log = await readFile(join(dataDir, 'logs', 'serve.log'), 'utf8');
    expect(log).toContain('refused websocket from another origin');
    expect(log).toContain('https://evil.example');
    expect(log).toContain('refused websocket without a valid token or session cookie');

    // A restart presents the same certificate: the fingerprint people checked stays valid.
    const second = await serve(['--self-signed', '--data-dir', dataDir]);
    expect(await second.fingerprint()).toBe(printed);
    expect(second.stderr()).not.toContain('Made a self-signed certificate');
    expect(await readFile(join(tls, 'self-signed-cert.pem'), 'utf8')).toBe(certPem);
    expect((await httpsGet(second.url)).peerFingerprint).toBe(printed);
    expect(second.token).not.toBe(first.token);
    await stop(second);

    // Neither run's token is in any log, on disk or on stderr.
    const everything = (await filesUnder(dataDir)).map((f) => f.bytes.toString('latin1')).join('\n') + first.stderr() + second.stderr();
    for (const t of [first.token, second.token]) expect(everything).not.toContain(t);
  });

  it('serves a given --cert/--key and refuses a key that does not belong to the certificate', async () => {
    const made = join(root, 'made');
    const s = await serve(['--self-signed', '--data-dir', made]);
    const printed = await s.fingerprint();
    await stop(s);
    const cert = join(root, 'given-cert.pem');
    const key = join(root, 'given-key.pem');
    await copyFile(join(made, 'tls', 'self-signed-cert.pem'), cert);
    await copyFile(join(made, 'tls', 'self-signed-key.pem'), key);

    const given = await serve(['--cert', cert, '--key', key, '--data-dir', join(root, 'given')]);
    expect(given.url).toMatch(/^https:/);
    expect(await given.fingerprint()).toBe(printed);
    expect((await httpsGet(given.url)).peerFingerprint).toBe(printed);
    await stop(given);

    const other = join(root, 'other-key.pem');
    await writeFile(other, generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    const wrong = await runCli(['serve', '--port', '0', '--cert', cert, '--key', other, '--data-dir', join(root, 'given')]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('does not belong to the certificate');
  });
});

describe('serve --insecure-http', () => {
  it('serves other machines over plain HTTP only when asked, warning in the log and on the page on every start', async () => {
    const dataDir = join(root, 'insecure');
    for (let run = 1; run <= 2; run++) {
      const s = await serve(['--host', '0.0.0.0', '--insecure-http', '--data-dir', dataDir]);
      expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:/);
      expect(s.stderr()).toContain('serving other machines over plain HTTP (--insecure-http)');
      const c = await wss(`${s.url.replace(/^http/, 'ws')}ws`);
      expect((await value<AppInfo>(c.call!('app.info', {}))).shellWarning).toMatch(/^Not encrypted: .*--self-signed/);
      c.close!();
      await stop(s);
    }
    const log = await readFile(join(dataDir, 'logs', 'serve.log'), 'utf8');
    expect(log.split('\n').filter((l) => l.includes('serving other machines over plain HTTP'))).toHaveLength(2);
  });
});

describe('serve keys without a keychain', () => {
  // No D-Bus session: no Secret Service to keep a key in.
  const noKeychain = { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/capture-desk-test-bus' };

  it('takes the API key from an owner-only key file and the HMAC key from the environment, holds them in memory, and the page can replace them', async () => {
    const keyFile = join(root, 'api-key');
    const apiKey = `ei_file_${process.pid}_${Date.now()}`;
    const hmacKey = `hmac_env_${process.pid}_${Date.now()}`;
    await writeFile(keyFile, `${apiKey}\n`, { mode: 0o644 });
    await chmod(keyFile, 0o644);
    const open = await runCli(['serve', '--port', '0', '--api-key-file', keyFile, '--data-dir', join(root, 'keys')]);
    expect(open.code).toBe(2);
    expect(open.stderr).toContain('chmod 600');
    expect(open.stderr).not.toContain(apiKey);
    const twice = await runCli(['serve', '--api-key', 'x', '--api-key-file', keyFile]);
    expect([twice.code, twice.stderr]).toEqual([2, expect.stringContaining('not both')]);

    await chmod(keyFile, 0o600);
    const dataDir = join(root, 'keys');
    const s = await serve(['--api-key-file', keyFile, '--data-dir', dataDir], { ...noKeychain, CAPTURE_DESK_HMAC_KEY: hmacKey });
    const c = await wss(`${s.url.replace(/^http/, 'ws')}ws`);
    const memory = { stored: false };
    expect(await value<KeyStatus>(c.call!('keys.status', {}))).toEqual({
      apiKey: 'set',
      hmacKey: 'set',
      keychainProblem: null,
      apiKeySource: { from: 'file', name: keyFile, ...memory },
      hmacKeySource: { from: 'environment', name: 'CAPTURE_DESK_HMAC_KEY', ...memory },
    });
    // Keys follow Settings' project, as CAPTURE_DESK_API_KEY does for the other commands.
    await value(c.call!('settings.set', { projectId: 4242 }));
    expect(await value<KeyStatus>(c.call!('keys.status', {}))).toMatchObject({ apiKey: 'set', apiKeySource: { from: 'file' } });
    // Replaced for the session, cleared, typed again: no keychain needed for any of it.
    const typed = `ei_typed_${process.pid}_${Date.now()}`;
    expect(await value<KeyStatus>(c.call!('keys.set', { kind: 'api-key', key: typed }))).toMatchObject({ apiKey: 'set', apiKeySource: { from: 'session', name: null, stored: false } });
    expect(await value<KeyStatus>(c.call!('keys.clear', { kind: 'api-key' }))).toMatchObject({ apiKey: 'not set', apiKeySource: { from: 'session' } });
    expect(await value<KeyStatus>(c.call!('keys.set', { kind: 'api-key', key: typed }))).toMatchObject({ apiKey: 'set' });
    c.close!();
    await stop(s);

    // None of the keys is in any file the app wrote, nor on stderr.
    const written = (await filesUnder(dataDir)).map((f) => f.bytes.toString('latin1')).join('\n') + s.stderr() + s.stdout();
    for (const k of [apiKey, hmacKey, typed]) expect(written).not.toContain(k);
    expect(written).toContain('project key held in memory for this run');
  });

  it('says where the API key comes from and why the HMAC key cannot be read when only CAPTURE_DESK_API_KEY is given', async () => {
    const apiKey = `ei_env_${process.pid}_${Date.now()}`;
    const s = await serve(['--data-dir', join(root, 'env')], { ...noKeychain, CAPTURE_DESK_API_KEY: apiKey });
    const c = await wss(`${s.url.replace(/^http/, 'ws')}ws`);
    const status = await value<KeyStatus>(c.call!('keys.status', {}));
    expect(status).toMatchObject({
      apiKey: 'set',
      apiKeySource: { from: 'environment', name: 'CAPTURE_DESK_API_KEY', stored: false },
      hmacKey: 'unknown',
      hmacKeySource: { from: 'keychain', stored: true },
    });
    expect(status.keychainProblem).toMatch(/D-Bus/);
    // A key for the keychain is still refused, never kept anywhere else.
    expect(await c.call!('keys.set', { kind: 'hmac-key', key: 'hmac_never_kept' })).toMatchObject({ ok: false, error: { code: 'Unavailable' } });
    c.close!();
    await stop(s);
  });
});
