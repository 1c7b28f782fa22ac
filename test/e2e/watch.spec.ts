import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectPlatform, openView, screenshot, sensorFile } from './app-page.js';
import { expect, test } from './fixtures.js';

test('a watched folder added in Settings: files already there are offered, new files upload by themselves with the folder label and metadata', async ({ page, shell, platform }, testInfo) => {
  const folder = await mkdtemp(join(tmpdir(), 'cd-e2e-watch-'));
  await writeFile(join(folder, 'before.1.cbor'), sensorFile('before.1.cbor', 1).buffer);
  await writeFile(join(folder, 'before.2.cbor'), sensorFile('before.2.cbor', 2).buffer);

  await page.goto(shell.url);
  await connectPlatform(page, platform, 'ei_test_key');
  const panel = page.getByTestId('watched-folders');
  await expect(panel.getByTestId('watch-empty')).toBeVisible();

  // A relative path is refused with the reason, and nothing is added.
  await panel.getByLabel('Folder', { exact: true }).fill('captures');
  await panel.getByRole('button', { name: 'Watch folder' }).click();
  await expect(panel.getByTestId('watch-form-error')).toContainText('absolute path');
  await expect(panel.getByTestId('watched-folder')).toHaveCount(0);

  await panel.getByLabel('Folder', { exact: true }).fill(folder);
  await panel.getByLabel('Category').selectOption('testing');
  await panel.getByLabel('fixed:').check();
  await panel.getByLabel('Fixed label for the folder').fill('hum');
  await panel.getByRole('button', { name: '+ Add key' }).click();
  await panel.getByLabel('Metadata key 1').fill('rig');
  await panel.getByLabel('Metadata value 1').fill('bench-3');
  await panel.getByLabel('Metadata value 1').press('Enter'); // submits the form from the keyboard
  const row = panel.getByTestId('watched-folder');
  await expect(row).toHaveCount(1);
  await expect(row.getByTestId('watch-state')).toHaveText('watching');
  await expect(row).toContainText('testing · label "hum" · rig=bench-3');
  await expect(row.getByTestId('watch-pending')).toContainText('2 files were already in this folder', { timeout: 10_000 });
  await screenshot(page, testInfo, 'watched-folders');

  // Nothing was sent unasked.
  await new Promise((r) => setTimeout(r, 1500));
  expect(platform.samples).toHaveLength(0);

  // A new file that finishes writing becomes a sample and goes up on its own.
  await mkdir(join(folder, 'sub'));
  await writeFile(join(folder, 'sub', 'new.cbor'), sensorFile('new.cbor', 3).buffer);
  await expect.poll(() => platform.samples.length, { timeout: 20_000 }).toBe(1);
  expect(platform.samples[0]).toMatchObject({ category: 'testing', label: 'hum', metadata: { rig: 'bench-3' } });

  // The offered files, when accepted.
  await row.getByRole('button', { name: 'Add and queue them' }).click();
  await expect(panel.getByTestId('watch-status')).toHaveText('Added 2 files to the upload queue.');
  await expect.poll(() => platform.samples.length, { timeout: 20_000 }).toBe(3);
  await expect(row.getByTestId('watch-pending')).toHaveCount(0);

  // Paused, then removed: the samples stay.
  await row.getByLabel('enabled').uncheck();
  await expect(row.getByTestId('watch-state')).toHaveText('paused');
  await row.getByRole('button', { name: `Stop watching ${folder}` }).click();
  await expect(panel.getByTestId('watch-empty')).toBeVisible();
  await openView(page, 'Samples');
  // The sample table only: the class balance below it has table rows too.
  await expect(page.getByTestId('sample-table').locator('tbody tr')).toHaveCount(3);
});
