import { mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { startIngestionServer } from '../support/ingestion-server/server.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function platform() {
  const srv = await startIngestionServer({ apiKeys: ['ei_good'], projectId: 7 });
  cleanups.push(() => srv.close());
  const data = await mkdtemp(join(tmpdir(), 'cd-check-'));
  // No keychain entry here: the key comes from the flag, or nowhere.
  const env = { CAPTURE_DESK_API_KEY: '', CAPTURE_DESK_HMAC_KEY: '' };
  // A URL given in `args` replaces the default: a flag given twice is a usage error.
  const check = (...args: string[]) => {
    const urls = [['--ingestion-url', srv.url], ['--management-url', srv.managementUrl]].filter(([flag]) => !args.includes(flag!)).flat();
    return runCli(['check', ...urls, '--data-dir', data, ...args], { env });
  };
  return { srv, check };
}

/** A port nothing listens on (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const { createServer: tcp } = await import('node:net');
  const s = tcp();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

type Report = { ok: boolean; steps: Array<{ part: string; ok: boolean | null; message: string; url: string | null }> };
const step = (r: Report, part: string) => r.steps.find((s) => s.part === part);

describe('capture-desk check', () => {
  it('a good key and project: exit 0, each part said, nothing stored on the platform', async () => {
    const { srv, check } = await platform();
    const r = await check('--project-id', '7', '--api-key', 'ei_good', '--json');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.ok).toBe(true);
    expect(step(report, 'api-key')).toMatchObject({ ok: true });
    expect(step(report, 'project')).toMatchObject({ ok: true, url: `${srv.managementUrl}/api/7/raw-data/project-metadata` });
    expect(step(report, 'ingestion')).toMatchObject({ ok: true });
    expect(step(report, 'hmac-key')!.message).toMatch(/unsigned/);
    expect(srv.samples).toHaveLength(0);
    const human = await check('--project-id', '7', '--api-key', 'ei_good');
    expect(human.stdout).toMatch(/^ok {3}API key:/m);
    expect(human.stdout).toContain('Connected');
  });

  it('a wrong key: exit 1 naming the API key', async () => {
    const { check } = await platform();
    const r = await check('--project-id', '7', '--api-key', 'ei_wrong');
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL API key: The platform refused the API key for project 7/m);
    expect(r.stdout).toMatch(/^FAIL ingestion service: The ingestion service refused the API key \(401/m);
    expect(r.stdout).toMatch(/Not connected: fix the API key, ingestion service/);
  });

  it('a wrong project: exit 1 naming the project', async () => {
    const { check } = await platform();
    const r = await check('--project-id', '8', '--api-key', 'ei_good', '--json');
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as Report;
    expect(step(report, 'project')).toMatchObject({ ok: false });
    expect(step(report, 'project')!.message).toMatch(/Project 8 was not found.*project id/);
    expect(step(report, 'ingestion')).toMatchObject({ ok: true });
  });

  it('no key and no project: says where to get them, contacts nothing', async () => {
    const { srv, check } = await platform();
    const r = await check('--json');
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as Report;
    expect(step(report, 'api-key')).toMatchObject({ ok: false });
    expect(step(report, 'project')!.message).toMatch(/number in the project URL/);
    expect(srv.requests).toHaveLength(0);
  });

  it('a URL where nothing answers, and a server whose certificate cannot be verified, are named', async () => {
    const { check } = await platform();
    const closed = await closedPort();
    const r = await check('--project-id', '7', '--api-key', 'ei_good', '--management-url', `http://127.0.0.1:${closed}/v1`, '--json');
    expect(r.code).toBe(1);
    const m = step(JSON.parse(r.stdout) as Report, 'management')!;
    expect(m).toMatchObject({ ok: false, url: `http://127.0.0.1:${closed}/v1/api/7/raw-data/project-metadata` });
    expect(m.message).toContain(`Could not reach the management API at 127.0.0.1:${closed} (ECONNREFUSED)`);

    // A self-signed certificate, as a lab proxy or a wrong host would present.
    const dir = await mkdtemp(join(tmpdir(), 'cd-check-tls-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'c.pem'), '-days', '1', '-subj', '/CN=127.0.0.1'], { stdio: 'ignore' });
    const { readFileSync } = await import('node:fs');
    const tls = createServer({ key: readFileSync(join(dir, 'k.pem')), cert: readFileSync(join(dir, 'c.pem')) }, (_q, s) => s.end('{}'));
    await new Promise<void>((r) => tls.listen(0, '127.0.0.1', () => r()));
    cleanups.push(() => new Promise((r) => tls.close(() => r(undefined))));
    const port = (tls.address() as { port: number }).port;
    const t = await check('--project-id', '7', '--api-key', 'ei_good', '--management-url', `https://127.0.0.1:${port}/v1`, '--ingestion-url', `https://127.0.0.1:${port}`, '--json');
    expect(t.code).toBe(1);
    const report = JSON.parse(t.stdout) as Report;
    expect(step(report, 'management')!.message).toMatch(/TLS certificate of 127\.0\.0\.1:\d+ could not be verified \(DEPTH_ZERO_SELF_SIGNED_CERT\)/);
    expect(step(report, 'ingestion')!.message).toMatch(/TLS certificate|self.signed|DEPTH_ZERO/i);
  });
});
