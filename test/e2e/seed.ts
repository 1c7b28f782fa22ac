import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { sensorDoc } from '../support/ingestion-server/fixtures.js';
import { PRESETS, rowsWithEnergies, writeTestModel, type TestModelOptions } from '../support/models/test-model.mjs';
import { expect } from './fixtures.js';

/**
 * A data folder filled before the page opens, through the CLI as a person at the terminal would:
 * a model added (`capture-desk model add`), samples imported (`capture-desk samples import`).
 */

export const GESTURES = PRESETS.gestureNew; // 62.5 Hz (16 ms a row), windows of 2000 ms, 3 axes; wave when mean |axis 0| >= 2

/** Rows of the gesture model's windows, one window per energy, in order. */
export function gestureRows(energies: number[]): number[][] {
  return rowsWithEnergies(GESTURES, energies);
}

export async function addModel(dataDir: string, name: string, opts: TestModelOptions = GESTURES): Promise<void> {
  const { dir } = await writeTestModel(await mkdtemp(join(tmpdir(), 'cd-e2e-model-')), opts);
  const r = await runCli(['model', 'add', dir, '--name', name, '--data-dir', dataDir]);
  expect(r.code, r.stderr).toBe(0);
}

/** Acquisition files with these rows (16 ms apart), imported into the folder the shell serves, one import per label. */
export async function importSamples(dataDir: string, files: Array<{ name: string; label: string; rows: number[][] }>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'cd-e2e-seed-'));
  const paths: string[] = [];
  for (const f of files) {
    const path = join(dir, `${f.name}.json`);
    await writeFile(path, JSON.stringify(sensorDoc(f.rows, 16)));
    paths.push(path);
  }
  for (const label of new Set(files.map((f) => f.label))) {
    const mine = paths.filter((_, i) => files[i]!.label === label);
    const r = await runCli(['samples', 'import', ...mine, '--label', label, '--data-dir', dataDir]);
    expect(r.code, r.stderr).toBe(0);
  }
}
