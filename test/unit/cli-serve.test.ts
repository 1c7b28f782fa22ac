import { mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, startServe } from '../support/cli.js';

describe('capture-desk serve (built CLI)', () => {
  it('documents its flags', async () => {
    const r = await runCli(['serve', '--help']);
    expect(r.code).toBe(0);
    for (const flag of ['--port', '--host', '--data-dir', 'token']) expect(r.stdout).toContain(flag);
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

  it('prints the tokened URL on stdout, creates the data dir, serves nothing without the token', async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'cd-serve-')), 'nested', 'data');
    const { url, child } = await startServe(['--port', '0', '--data-dir', dataDir]);
    try {
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{43}\/$/);
      expect((await stat(dataDir)).isDirectory()).toBe(true);
      expect((await fetch(url)).status).toBe(200);
      expect((await fetch(new URL('/', url))).status).toBe(401);
      const html = await (await fetch(url)).text();
      const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
      expect(script, 'the built renderer is served').toBeDefined();
      expect((await fetch(url + script)).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
    const code = await new Promise((r) => child.on('exit', r));
    expect(code).toBe(0);
  });
});
