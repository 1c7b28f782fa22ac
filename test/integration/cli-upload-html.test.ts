// `capture-desk upload` against a server that answers with an HTML page (here a proxy's 401 login
// page): the error printed the whole page. It now says the status, that an HTML page came instead
// of the platform's JSON, and to check --ingestion-url or the proxy, with only the page's title.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { sensorDoc } from '../support/ingestion-server/fixtures.js';
import { useTempDir } from '../support/temp-dir.js';

const root = useTempDir('cd-cli-upload-html-');
const closers: Array<() => void> = [];
afterEach(() => {
  for (const c of closers.splice(0)) c();
});

describe('upload answered with an HTML page', () => {
  it('says the status and the page\'s title, never the page', async () => {
    const page = `<!doctype html><html><head><title>Sign in - Corporate Proxy</title><script>var x = 1;</script></head><body>${'<div class="login">Please sign in</div>'.repeat(200)}</body></html>`;
    const s = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(401, { 'content-type': 'text/html' }).end(page));
    });
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    closers.push(() => s.close());
    const file = join(root(), 'idle.1.json');
    await writeFile(file, JSON.stringify(sensorDoc([[1], [2]])));
    const r = await runCli(['upload', '--ingestion-url', `http://127.0.0.1:${(s.address() as AddressInfo).port}`, '--api-key', 'ei_test_key', '--data-dir', join(root(), 'data'), file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('The server answered 401 with an HTML page ("Sign in - Corporate Proxy") instead of the platform\'s JSON: the ingestion URL is wrong (--ingestion-url on the command line, or Settings), or a proxy in between answered.');
    expect(r.stderr + r.stdout).not.toMatch(/<html|<div|Please sign in|var x/);
  });
});
