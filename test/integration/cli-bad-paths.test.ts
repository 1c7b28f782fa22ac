// Files where folders belong and folders where files belong (issue 42, item 5), through the built
// CLI: a sentence naming the path and what to do, never the system's ENOTDIR/EEXIST/EISDIR text,
// and what was in the way is left exactly as it was.
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { useTempDir } from '../support/temp-dir.js';

const root = useTempDir('cd-cli-bad-paths-');
const SYSTEM_TEXT = /E[A-Z]{3,}:|illegal operation|not a directory, mkdir|file already exists/;

async function dataWithOneSample(name: string): Promise<string> {
  const data = join(root(), name);
  const csv = join(root(), `${name}.knock.1.csv`);
  await writeFile(csv, 'timestamp,accX\n0,1\n10,2\n20,3\n');
  const r = await runCli(['samples', 'import', csv, '--data-dir', data]);
  expect(r.code, r.stderr).toBe(0);
  return data;
}

describe('paths of the wrong kind', () => {
  it('samples export --out a file, or a path through a file', async () => {
    const data = await dataWithOneSample('export');
    const file = join(root(), 'notes.txt');
    await writeFile(file, 'my notes');
    for (const [out, why] of [[file, 'a file, not a folder, has that name'], [join(file, 'sub'), 'a file, not a folder, is in its path']] as const) {
      const r = await runCli(['samples', 'export', '--out', out, '--data-dir', data]);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`capture-desk samples export: Cannot export into ${out}: ${why}. Choose a folder to export into (it is made if missing); nothing was written.\n`);
    }
    expect(await readFile(file, 'utf8')).toBe('my notes');
  }, 30_000);

  it('a data folder whose samples is a file', async () => {
    const data = join(root(), 'samples-file');
    await mkdir(data);
    await writeFile(join(data, 'samples'), 'not a folder');
    for (const args of [['samples', 'list'], ['samples', 'import', join(root(), 'x.1.csv')]]) {
      const r = await runCli([...args, '--data-dir', data]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`Cannot use the data folder ${data}: its sample files go in ${join(data, 'samples')}, and a file, not a folder, has that name. Move that file out of the data folder (or rename it), then start again`);
      expect(r.stderr).not.toMatch(SYSTEM_TEXT);
    }
    expect(await readFile(join(data, 'samples'), 'utf8')).toBe('not a folder');
  }, 30_000);

  it('a samples.db that is a folder', async () => {
    const data = join(root(), 'db-folder');
    await mkdir(join(data, 'samples.db'), { recursive: true });
    await writeFile(join(data, 'samples.db', 'keep.txt'), 'mine');
    const r = await runCli(['samples', 'list', '--data-dir', data]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`capture-desk samples list: Cannot open the sample index ${join(data, 'samples.db')}: it is a folder, and the index is a file of that name. Move that folder out of the data folder (or rename it), then start again: the index is built anew from the sample files.\n`);
    expect((await stat(join(data, 'samples.db'))).isDirectory()).toBe(true);
    expect(await readFile(join(data, 'samples.db', 'keep.txt'), 'utf8')).toBe('mine');
  }, 30_000);

  // What no command words itself still reaches the terminal as a sentence naming the path
  // (main.ts, system-error.ts), here an export folder whose info.labels is a folder.
  it('any other system error names the path and what is wrong there', async () => {
    const data = await dataWithOneSample('net');
    const out = join(root(), 'net-out');
    await mkdir(join(out, 'info.labels'), { recursive: true });
    const r = await runCli(['samples', 'export', '--out', out, '--data-dir', data]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`capture-desk samples export: Could not use ${join(out, 'info.labels')}: it is a folder, where a file was expected (EISDIR). Check that path, then try again.\n`);
    expect((await stat(join(out, 'info.labels'))).isDirectory()).toBe(true);
  }, 30_000);
  // Node 20's recursive mkdir never returns for a path under /proc (its loop retries ENOENT): these
  // hung until the test's timeout before core/fs/make-dirs.ts.
  it.runIf(process.platform === 'linux')('a data folder or export folder where the system allows none (/proc) is said at once', async () => {
    const data = await dataWithOneSample('proc');
    const list = await runCli(['samples', 'list', '--data-dir', '/proc/capture-desk/data']);
    expect(list.code).toBe(1);
    expect(list.stderr).toBe("capture-desk samples list: Cannot use the data folder /proc/capture-desk/data: the system allows no folder to be made there (ENOENT). Choose a folder in your home or on a data disk with --data-dir DIR.\n");
    const out = await runCli(['samples', 'export', '--out', '/proc/capture-desk/out', '--data-dir', data]);
    expect(out.code).toBe(1);
    // (It said "there is nothing there … Check that path": /proc is there, and takes no folder.)
    expect(out.stderr).toBe('capture-desk samples export: Cannot export into /proc/capture-desk/out: the system allows no folder to be made there (ENOENT). Choose a folder to export into (it is made if missing); nothing was written.\n');
  }, 30_000);
});
