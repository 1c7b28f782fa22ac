import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe } from '../support/cli.js';
import { addFiles, connectPlatform, dropFiles, openView, sensorFile } from './app-page.js';
import { expect, test } from './fixtures.js';
import { addedText, bulk, expectLocal, expectOnPlatform, expectRow, queueCounts, remove, reviewFacts, select, setCategory, setLabel, tableRow } from './sample-views.js';

// Issue 19, item 2: no view goes stale. Every path that changes a sample is checked against each
// view that shows it. A second page on the same core makes the changes where a view cannot (the
// sample view is modal), and proves the views follow changes made anywhere, not only their own.

test('adds, drop, label, category, delete, upload and a move on the platform reach the table, class balance, added-files list, queue and sample view', async ({ page, context, shell, platform }) => {
  test.setTimeout(120_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(shell.url);
  await connectPlatform(page, platform, 'ei_test_key');
  await openView(page, 'Samples');
  await page.getByTestId('import').getByLabel('Queue for upload now').uncheck();

  // Drop: the table, the class balance, the queue and the added-files list show it.
  await dropFiles(page, [{ name: 'tap.1.cbor', buffer: sensorFile('x', 1).buffer }]);
  await expect(addedText(page, 'tap.1.cbor')).toHaveText('tap · training · local');
  await expectRow(page, 'tap.1.cbor', 'tap', 'training', 'local');
  await expectLocal(page, 'tap', 'training', 1);
  await expect(queueCounts(page)).toContainText('1 local, not queued');

  // Add files (the picker): the same views.
  await addFiles(page, [sensorFile('hum.1.cbor', 10), sensorFile('hum.2.cbor', 20), sensorFile('hum.3.cbor', 30)]);
  for (const n of ['hum.1.cbor', 'hum.2.cbor', 'hum.3.cbor']) await expect(addedText(page, n)).toHaveText('hum · training · local');
  await expectRow(page, 'hum.3.cbor', 'hum', 'training', 'local');
  await expectLocal(page, 'hum', 'training', 3);
  await expect(queueCounts(page)).toContainText('4 local, not queued');

  // Set label, set category (the issue: "hum-take.wav noise · training" after "Set category → testing").
  await setLabel(page, ['hum.2.cbor'], 'buzz');
  await expect(addedText(page, 'hum.2.cbor')).toHaveText('buzz · training · local');
  await expectRow(page, 'hum.2.cbor', 'buzz', 'training', 'local');
  await expectLocal(page, 'buzz', 'training', 1);
  await setCategory(page, ['hum.1.cbor'], 'testing');
  await expect(addedText(page, 'hum.1.cbor')).toHaveText('hum · testing · local');
  await expectRow(page, 'hum.1.cbor', 'hum', 'testing', 'local');
  await expectLocal(page, 'hum', 'testing', 1);
  await expectLocal(page, 'hum', 'training', 1);

  // A second page on the same core changes what this one shows.
  const other = await context.newPage();
  await other.goto(shell.url);
  await openView(other, 'Samples');

  // Delete (elsewhere): gone from the table, the balance and the queue; the list says so.
  await remove(other, ['hum.3.cbor']);
  await expect(addedText(page, 'hum.3.cbor')).toHaveText('deleted since');
  await expect(tableRow(page, 'hum.3.cbor')).toHaveCount(0);
  await expectLocal(page, 'hum', 'training', 0);
  await expect(queueCounts(page)).toContainText('3 local, not queued');

  // The sample view, open on hum.1, follows a relabel made in the other page.
  await tableRow(page, 'hum.1.cbor').locator('td.name').dblclick();
  await expect(reviewFacts(page)).toContainText('hum · testing · local');
  await setLabel(other, ['hum.1.cbor'], 'drone');
  await expect(reviewFacts(page)).toContainText('drone · testing · local');
  await expect(addedText(page, 'hum.1.cbor')).toHaveText('drone · testing · local');

  // Upload: queued in the other page, sent; every view here shows it uploaded.
  await select(other, ['tap.1.cbor', 'hum.1.cbor', 'hum.2.cbor']);
  await bulk(other).getByRole('button', { name: 'Queue for upload' }).click();
  await expect(reviewFacts(page)).toContainText('drone · testing · uploaded', { timeout: 20_000 });
  await expect(addedText(page, 'hum.1.cbor')).toHaveText('drone · testing · uploaded');
  await expect(addedText(page, 'hum.2.cbor')).toHaveText('buzz · training · uploaded', { timeout: 20_000 });
  await expect(addedText(page, 'tap.1.cbor')).toHaveCount(0); // the drop's row made way for the next add
  await expect(queueCounts(page)).toContainText('0 queued · 0 uploading · 3 uploaded');
  await expectOnPlatform(page, 'drone', 'testing', 1);
  await expectOnPlatform(page, 'buzz', 'training', 1);
  await expectLocal(page, 'drone', 'testing', 0);

  // Move on the platform (the other page sets the uploaded sample's category).
  await setCategory(other, ['hum.1.cbor'], 'training');
  await expect(other.getByRole('status').filter({ hasText: '1 sample set to training (1 moved on the platform).' })).toBeVisible();
  expect(platform.samples.find((s) => s.originalName === 'hum.1.cbor')?.category).toBe('training');
  await expect(reviewFacts(page)).toContainText('drone · training · uploaded');
  await expect(addedText(page, 'hum.1.cbor')).toHaveText('drone · training · uploaded');
  await expectOnPlatform(page, 'drone', 'training', 1);
  await expectOnPlatform(page, 'drone', 'testing', 0);

  // Deleted while open: the sample view says so and offers nothing to cut.
  await remove(other, ['hum.1.cbor']);
  await expect(page.getByTestId('review-gone')).toContainText('This sample was deleted');
  await expect(reviewFacts(page)).toContainText('drone · training · deleted');
  await expect(page.getByTestId('sample-view').getByRole('button', { name: 'Split…' })).toBeDisabled();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('sample-view')).toHaveCount(0);
  await expect(addedText(page, 'hum.1.cbor')).toHaveText('deleted since');
  await expect(tableRow(page, 'hum.1.cbor')).toHaveCount(0);
  await expectRow(page, 'hum.2.cbor', 'buzz', 'training', 'uploaded');
  await expect(queueCounts(page)).toContainText('2 uploaded');
  expect(errors).toEqual([]);
});

test('a recording, a watched-folder import and a recording recovered after a crash show up in the table, class balance and queue', async ({ browser }) => {
  test.setTimeout(120_000);
  const dataDir = join(await mkdtemp(join(tmpdir(), 'cd-e2e-follow-')), 'data');
  await mkdir(dataDir, { recursive: true });
  await writeFile(join(dataDir, 'settings.json'), JSON.stringify({ qualityHold: 'off' }));
  const folder = await mkdtemp(join(tmpdir(), 'cd-e2e-follow-watch-'));
  const context = await browser.newContext();
  let serve = await startServe(['--port', '0', '--data-dir', dataDir]);
  try {
    // The Samples view is open in one page while the other records and watches a folder.
    const live = await context.newPage();
    await live.goto(serve.url);
    const samples = await context.newPage();
    await samples.goto(serve.url);
    await openView(samples, 'Samples');
    await expect(samples.getByTestId('samples-empty')).toBeVisible();

    // Record: 1 s of the simulated sensor, kept local.
    await expect.poll(async () => Number(await live.getByTestId('rows-received').textContent()), { timeout: 10_000 }).toBeGreaterThan(50);
    const bar = live.getByTestId('record-bar');
    await bar.getByLabel('Label', { exact: true }).fill('wave');
    await bar.getByLabel('Length (s)').fill('1');
    await bar.getByLabel('Upload when saved').uncheck();
    await bar.getByRole('button', { name: 'Record' }).click();
    await expect(live.getByTestId('recording-saved')).toContainText('Saved 1 sample', { timeout: 10_000 });
    await expectRow(samples, /^wave\./, 'wave', 'training', 'local');
    await expectLocal(samples, 'wave', 'training', 1);
    await expect(queueCounts(samples)).toContainText('1 local, not queued');

    // Import: a new file in a watched folder becomes a sample (queued; no key, so it waits).
    await openView(live, 'Settings');
    const panel = live.getByTestId('watched-folders');
    await panel.getByLabel('Folder', { exact: true }).fill(folder);
    await panel.getByLabel('fixed:').check();
    await panel.getByLabel('Fixed label for the folder').fill('drip');
    await panel.getByRole('button', { name: 'Watch folder' }).click();
    await expect(panel.getByTestId('watch-state')).toHaveText('watching');
    await writeFile(join(folder, 'drip.1.cbor'), sensorFile('drip.1.cbor', 5).buffer);
    await expect(tableRow(samples, 'drip.1.cbor')).toHaveCount(1, { timeout: 20_000 });
    await expect(tableRow(samples, 'drip.1.cbor').locator('td.label')).toHaveText('drip');
    await expectLocal(samples, 'drip', 'training', 1);
    await expect(queueCounts(samples)).toContainText(/[01] queued/);

    // Recover: a recording cut by kill -9 of the core becomes an incomplete sample at the next start.
    await openView(live, 'Live');
    await bar.getByLabel('Label', { exact: true }).fill('crash');
    await bar.getByLabel('Length (s)').fill('');
    await bar.getByRole('button', { name: 'Record' }).click();
    await expect(live.getByTestId('recording-indicator')).toContainText('REC');
    await expect.poll(async () => (await readdir(join(dataDir, 'recordings'))).some((f) => f.endsWith('.rows')), { timeout: 5000 }).toBe(true);
    await live.waitForTimeout(800);
    serve.child.kill('SIGKILL');
    await new Promise((r) => serve.child.once('exit', r));
    await expect(samples.getByTestId('connection')).not.toHaveText('connected');

    serve = await startServe(['--port', '0', '--data-dir', dataDir]);
    await samples.goto(serve.url);
    await openView(samples, 'Samples');
    await expectRow(samples, /^crash\./, 'crash', 'training', 'local');
    await expect(tableRow(samples, /^crash\./).locator('td.note')).not.toBeEmpty();
    await expectLocal(samples, 'crash', 'training', 1);
    await expect(queueCounts(samples)).toContainText('local, not queued');
  } finally {
    await context.close();
    serve.child.kill('SIGTERM');
  }
});
