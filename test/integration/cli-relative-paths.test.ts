// Path flags given relative to the folder a command starts in (issue 42, item 5): every command
// resolves them once where it reads its flags, so what reaches the core (and the model worker,
// whose require() of an export needs an absolute path) is the folder the person meant.
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { PRESETS, writeTestModel } from '../support/models/test-model.mjs';
import { useTempDir } from '../support/temp-dir.js';

const root = useTempDir('cd-cli-relative-');

describe('relative --data-dir and --out', () => {
  it('model add, list; samples import, list, export: all in the folders named from where the command ran', async () => {
    const here = join(root(), 'lab');
    await mkdir(here);
    await writeTestModel(join(here, 'gestures'), PRESETS.gestureNew);
    const inHere = (args: string[]) => runCli(args, { cwd: here });

    const add = await inHere(['model', 'add', 'gestures', '--data-dir', 'data']);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toMatch(/^Added model "gestures"\./);
    expect(await readdir(join(here, 'data', 'models'))).toEqual(['gestures']);
    const list = await inHere(['model', 'list', '--data-dir', './data']);
    expect(list.stdout).toMatch(/^gestures +accelerometer/);

    await writeFile(join(here, 'knock.3.csv'), 'timestamp,accX\n0,1\n10,2\n20,3\n');
    const imp = await inHere(['samples', 'import', 'knock.3.csv', '--data-dir', 'data']);
    expect(imp.code, imp.stderr).toBe(0);
    expect(String(JSON.parse(imp.stdout).file)).toContain(join(here, 'data', 'samples'));
    const exp = await inHere(['samples', 'export', '--out', 'exported', '--data-dir', 'data']);
    expect(exp.code, exp.stderr).toBe(0);
    expect(await readdir(join(here, 'exported', 'training'))).toEqual(['knock.3.cbor']);
  }, 60_000);
});
