// A model added without its axes (a build from before 2022 does not say them), through the built
// CLI: the refusal to classify with it used to say `model add … --axes N`, which the name check
// then refuses for a model already added. It now names `model set-axes NAME --axes N`, and that
// command works: the same model classifies afterwards, nothing added twice.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { sensorDoc } from '../support/ingestion-server/fixtures.js';
import { PRESETS, rowsWithEnergies, writeTestModel } from '../support/models/test-model.mjs';
import { useTempDir } from '../support/temp-dir.js';

const NO_PLATFORM = { CAPTURE_DESK_API_KEY: '', CAPTURE_DESK_HMAC_KEY: '' };
const root = useTempDir('cd-cli-model-axes-');

describe('capture-desk model set-axes', () => {
  it('gives an added model its axes when the refusal to classify says so; "model add --axes" again would be refused', async () => {
    const data = join(root(), 'data');
    await mkdir(data);
    const cli = (args: string[]) => runCli([...args, '--data-dir', data], { env: NO_PLATFORM });
    const { dir } = await writeTestModel(join(root(), 'old-export'), PRESETS.gestureOld);
    const added = await cli(['model', 'add', dir, '--name', 'old']);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/axes +unknown: this build does not say; give it with "capture-desk model set-axes old --axes N", or answer when a source asks/);

    const file = join(root(), 'take.json');
    await writeFile(file, JSON.stringify(sensorDoc(rowsWithEnergies(PRESETS.gestureOld, [0.5, 3], 3), 16)));
    const imported = await cli(['samples', 'import', file, '--json']);
    expect(imported.code, imported.stderr).toBe(0);
    const id = (JSON.parse(imported.stdout.trim().split('\n')[0]!) as { id: string }).id;

    const refused = await cli(['samples', 'classify', id, '--model', 'old', '--json']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Say it once: "capture-desk model set-axes old --axes N", or answer in Settings → Models');
    expect(refused.stderr).not.toContain('model add');

    // What the message used to suggest, for the record: the name is taken.
    const again = await cli(['model', 'add', dir, '--name', 'old', '--axes', '3']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('A model named "old" is already added.');

    const set = await cli(['model', 'set-axes', 'old', '--axes', '3', '--json']);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ name: 'old', axes: 3, axes_from: 'given', floats_per_window: 375 });
    const text = await cli(['model', 'info', 'old']);
    expect(text.stdout).toMatch(/axes +3 \(given\)/);

    const classified = await cli(['samples', 'classify', id, '--model', 'old', '--stride-ms', '2000', '--json']);
    expect(classified.code, classified.stderr).toBe(0);
    expect(classified.stdout.trim().split('\n').slice(0, -1).map((l) => (JSON.parse(l) as { label: string }).label)).toEqual(['idle', 'wave']);
    expect(await readdir(join(data, 'models'))).toEqual(['old']);
  });

  it('refuses a model that says its axes itself (exit 1), and --axes missing or out of range (exit 2)', async () => {
    const data = join(root(), 'data2');
    await mkdir(data);
    const cli = (args: string[]) => runCli([...args, '--data-dir', data], { env: NO_PLATFORM });
    const { dir } = await writeTestModel(join(root(), 'new-export'), PRESETS.gestureNew);
    expect((await cli(['model', 'add', dir, '--name', 'new'])).code).toBe(0);

    const own = await cli(['model', 'set-axes', 'new', '--axes', '2']);
    expect(own.code).toBe(1);
    expect(own.stderr).toBe('capture-desk model set-axes: Model "new" says itself that it takes 3 axes, so its axes cannot be set to 2: a model that says its axes keeps them.\n');
    // The number it states itself is what it keeps: asked for, that is no mistake (was exit 1).
    const same = await cli(['model', 'set-axes', 'new', '--axes', '3', '--json']);
    expect(same.code, same.stderr).toBe(0);
    expect(JSON.parse(same.stdout)).toMatchObject({ name: 'new', axes: 3, axes_from: 'model' });
    const sameText = await cli(['model', 'set-axes', 'new', '--axes', '3']);
    expect(sameText.stdout).toMatch(/^Model "new" already takes 3 axes: the model says so itself\.\n/);

    const none = await cli(['model', 'set-axes', 'new']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^capture-desk model set-axes: model set-axes needs --axes N .*\nRun "capture-desk model set-axes --help" for usage\.\n$/);
    const big = await cli(['model', 'set-axes', 'new', '--axes', '65']);
    expect(big.code).toBe(2);
    expect(big.stderr).toContain('--axes must be a whole number from 1 to 64; got "65".');
    const missing = await cli(['model', 'set-axes', 'nope', '--axes', '3']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('No model named "nope". Added: new.');
  });

  // An old microphone build (as the real kws-hi-bye-16k export) says no axes count, but a
  // microphone is one channel. --axes 2 used to be taken: the module was fed two windows' worth,
  // aborted on an assertion, and the message blamed the export. --axes 1 was recorded as "given",
  // which then let set-axes change it.
  it('refuses an --axes a microphone model contradicts, before anything is added; --axes 1 is the model\'s word', async () => {
    const data = join(root(), 'data3');
    await mkdir(data);
    const cli = (args: string[]) => runCli([...args, '--data-dir', data], { env: NO_PLATFORM });
    const { dir } = await writeTestModel(join(root(), 'mic-export'), PRESETS.audioOld);

    const two = await cli(['model', 'add', dir, '--name', 'mic', '--axes', '2']);
    expect(two.code).toBe(1);
    expect(two.stderr).toContain('--axes 2 contradicts the model, which says itself that it takes 1 axis (it is a microphone model: one channel). Leave --axes out, or give --axes 1; nothing was added.');
    expect(two.stderr).not.toMatch(/aborted|export it again/);
    expect(await readdir(join(data, 'models'))).toEqual([]);

    const one = await cli(['model', 'add', dir, '--name', 'mic', '--axes', '1', '--json']);
    expect(one.code, one.stderr).toBe(0);
    expect(JSON.parse(one.stdout)).toMatchObject({ name: 'mic', axes: 1, axes_from: 'model' });

    const three = await cli(['model', 'set-axes', 'mic', '--axes', '3']);
    expect(three.code).toBe(1);
    expect(three.stderr).toContain('Model "mic" says itself that it takes 1 axis (a microphone model: one channel), so its axes cannot be set to 3');
    expect((await cli(['model', 'info', 'mic', '--json'])).stdout).toContain('"axes":1,"axes_from":"model"');

    // A record written before this fix says "given" for such a model: still refused, and --axes 1 mends it.
    const recordPath = join(data, 'models', 'mic', 'model.json');
    const record = JSON.parse(await readFile(recordPath, 'utf8')) as { description: { axesFrom: string } };
    record.description.axesFrom = 'given';
    await writeFile(recordPath, JSON.stringify(record));
    expect((await cli(['model', 'set-axes', 'mic', '--axes', '3'])).code).toBe(1);
    const mended = await cli(['model', 'set-axes', 'mic', '--axes', '1', '--json']);
    expect(mended.code, mended.stderr).toBe(0);
    expect(JSON.parse(mended.stdout)).toMatchObject({ axes: 1, axes_from: 'model' });
  });

  it('refuses a bad --name before starting the model (exit 2, with the rule for names)', async () => {
    const data = join(root(), 'data4');
    await mkdir(data);
    const { dir } = await writeTestModel(join(root(), 'name-export'), PRESETS.audioOld);
    for (const name of ['../evil', '', 'ü日本']) {
      const r = await runCli(['model', 'add', dir, '--name', name, '--data-dir', data], { env: NO_PLATFORM });
      expect(r.code, name).toBe(2);
      expect(r.stderr, name).not.toContain('Starting the model');
      expect(r.stderr, name).toContain('a model name is 1-64 letters (A-Z, a-z), digits, ".", "-" or "_", not starting with "."');
      expect(r.stderr, name).toContain(name === '' ? '--name is empty' : `--name "${name}" cannot name a model`);
    }
    expect(await readdir(join(data, 'models')).catch(() => [])).toEqual([]);
  });
});
