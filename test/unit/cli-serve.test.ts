import { mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, startServe } from '../support/cli.js';

describe('capture-desk serve (built CLI)', () => {
  it('documents its flags', async () => {
    const r = await runCli(['serve', '--help']);
    expect(r.code).toBe(0);
    for (const flag of ['--port', '--host', '--data-dir', 'token', '--self-signed', '--cert', '--key', '--insecure-http', '--api-key', '--api-key-file', '--hmac-key', 'fingerprint']) {
      expect(r.stdout).toContain(flag);
    }
  });

  it('refuses a bad port or an unknown flag with exit code 2 and a reason', async () => {
    const bad = await runCli(['serve', '--port', 'eighty']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--port must be a whole number');
    const unknown = await runCli(['serve', '--prot', '1']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--prot');
    const nothing = await runCli(['frobnicate']);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('unknown command');
  });

  it('refuses to serve other machines over plain HTTP, naming --self-signed', async () => {
    for (const host of ['0.0.0.0', '::', '192.0.2.1']) {
      const r = await runCli(['serve', '--host', host, '--port', '0', '--data-dir', join(tmpdir(), 'cd-never-made')]);
      expect(r.code, host).toBe(2);
      expect(r.stderr).toContain('--self-signed');
      expect(r.stderr).toContain('--insecure-http');
      expect(r.stdout).toBe('');
    }
    const both = await runCli(['serve', '--self-signed', '--insecure-http']);
    expect(both.code).toBe(2);
    const half = await runCli(['serve', '--cert', 'c.pem']);
    expect([half.code, half.stderr]).toEqual([2, expect.stringContaining('--cert and --key go together')]);
  }, 60_000);

  it('prints the tokened URL on stdout, creates the data dir, serves nothing without the token', async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'cd-serve-')), 'nested', 'data');
    const { url, child } = await startServe(['--port', '0', '--data-dir', dataDir]);
    try {
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{43}\/$/);
      expect((await stat(dataDir)).isDirectory()).toBe(true);
      const signIn = await fetch(url, { redirect: 'manual' });
      expect([signIn.status, signIn.headers.get('location')]).toEqual([303, '/app/']);
      const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!;
      const app = new URL('/app/', url).href;
      expect((await fetch(app, { headers: { cookie } })).status).toBe(200);
      expect((await fetch(app)).status).toBe(401);
      expect((await fetch(new URL('/', url))).status).toBe(401);
      const html = await (await fetch(app, { headers: { cookie } })).text();
      const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
      expect(script, 'the built renderer is served').toBeDefined();
      expect((await fetch(app + script, { headers: { cookie } })).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
    const code = await new Promise((r) => child.on('exit', r));
    expect(code).toBe(0);
  });
});
