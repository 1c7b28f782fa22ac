// A folder holding a link back to itself, or to a folder above it (issue 42, item 5), through the
// built CLI against the test ingestion server: each folder is read once, every file is sent and
// indexed once, and the loop is said once on stderr.
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { encodeCbor, sensorDoc } from '../support/ingestion-server/fixtures.js';
import { startIngestionServer } from '../support/ingestion-server/server.js';
import { useTempDir } from '../support/temp-dir.js';

const root = useTempDir('cd-cli-loops-');
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
const jsonLines = (text: string) => text.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

/** in/idle.1.cbor, in/sub/wave.1.cbor, in/self -> in (a loop), in/sub/up -> .. (a loop), in/again -> sub (the same folder twice). */
async function loopedFolder(name: string): Promise<string> {
  const dir = join(root(), name, 'in');
  await mkdir(join(dir, 'sub'), { recursive: true });
  await writeFile(join(dir, 'idle.1.cbor'), encodeCbor(sensorDoc([[1, 2], [3, 4]])));
  await writeFile(join(dir, 'sub', 'wave.1.cbor'), encodeCbor(sensorDoc([[5, 6], [7, 8]])));
  await symlink(dir, join(dir, 'self'));
  await symlink('..', join(dir, 'sub', 'up'));
  await symlink('sub', join(dir, 'again'));
  return dir;
}

describe('folders that link back to themselves', () => {
  it('upload sends and indexes each file once and says each loop once', async () => {
    const srv = await startIngestionServer();
    cleanups.push(() => srv.close());
    const dir = await loopedFolder('upload');
    const data = join(root(), 'upload', 'data');
    const r = await runCli(['upload', '--ingestion-url', srv.url, '--api-key', 'ei_test_key', '--data-dir', data, dir]);
    expect(r.stdout.trim().split('\n').at(-1), r.stderr).toBe('2 uploaded, 0 already present, 0 rejected, 0 failed');
    expect(srv.samples.map((s) => s.label).sort()).toEqual(['idle', 'wave']);
    // "again" comes first by name: the folder is read through it, and sub/ is the one said.
    const said = r.stderr.split('\n').filter((l) => l.startsWith('skipped '));
    expect(said.sort()).toEqual([
      `skipped ${join(dir, 'again', 'up')}: a link back to ${dir}, read once already`,
      `skipped ${join(dir, 'self')}: a link back to ${dir}, read once already`,
      `skipped ${join(dir, 'sub')}: the same folder as ${join(dir, 'again')}, read once already`,
    ]);
    const listed = jsonLines((await runCli(['samples', 'list', '--json', '--data-dir', data])).stdout);
    expect(listed).toHaveLength(2);
  }, 60_000);

  it('samples import of an export folder with a loop in it indexes its files once', async () => {
    const dir = await loopedFolder('import');
    await writeFile(join(dir, 'info.labels'), JSON.stringify({
      version: 1,
      files: [
        { path: 'idle.1.cbor', category: 'training', label: { type: 'label', label: 'idle' } },
        { path: 'sub/wave.1.cbor', category: 'training', label: { type: 'label', label: 'wave' } },
      ],
    }));
    const data = join(root(), 'import', 'data');
    const r = await runCli(['samples', 'import', dir, '--data-dir', data]);
    expect(r.code, r.stderr).toBe(0);
    expect(jsonLines(r.stdout).map((s) => s.label)).toEqual(['idle', 'wave']);
    expect(jsonLines((await runCli(['samples', 'list', '--json', '--data-dir', data])).stdout)).toHaveLength(2);
  }, 60_000);
});
