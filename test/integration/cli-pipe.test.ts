import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, runCli } from '../support/cli.js';
import { encodeCbor, sensorDoc } from '../support/ingestion-server/fixtures.js';
import { startIngestionServer, type IngestionServer } from '../support/ingestion-server/server.js';

let srv: IngestionServer;
let data: string;

beforeAll(async () => {
  srv = await startIngestionServer();
  const root = await mkdtemp(join(tmpdir(), 'cd-pipe-'));
  await mkdir(join(root, 'in'));
  // Enough samples that a listing overflows the pipe's buffer (64 KiB) long before it ends.
  await Promise.all(Array.from({ length: 1500 }, (_, i) => writeFile(join(root, 'in', `idle.${i}.cbor`), encodeCbor(sensorDoc([[i, 1], [i, 2]])))));
  data = join(root, 'data');
  const up = await runCli(['upload', '--ingestion-url', srv.url, '--api-key', 'ei_test_key', '--data-dir', data, join(root, 'in')]);
  expect(up.code).toBe(0);
}, 60_000);
afterAll(() => srv?.close());

/** `capture-desk ARGS | head -1`, and the CLI's own exit code and stderr. */
function throughHead(args: string[]) {
  const quoted = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const r = spawnSync('bash', ['-c', `${quoted} 2>"$ERR" | head -1; echo "exit:\${PIPESTATUS[0]}"`], { env: { ...process.env, ERR: join(data, '..', 'stderr.txt') }, encoding: 'utf8' });
  const err = spawnSync('cat', [join(data, '..', 'stderr.txt')], { encoding: 'utf8' }).stdout;
  return { out: r.stdout, err };
}

describe('commands that print lists, into a pipe closed early', () => {
  it.each([
    ['samples list', ['samples', 'list']],
    ['samples list --json', ['samples', 'list', '--json']],
  ])('%s | head: exits 0, no stack trace', (_name, args) => {
    const r = throughHead([...args, '--data-dir', data]);
    expect(r.out.trim().split('\n')).toHaveLength(2); // one line, then our exit line
    expect(r.out).toMatch(/exit:0\s*$/);
    expect(r.err).not.toMatch(/EPIPE|Error|at /);
  });
});
