import { addFiles, connectPlatform, dropFiles, openView, screenshot, sensorFile } from './app-page.js';
import { expect, test } from './fixtures.js';

test('files added on the Samples view upload, with per-file errors, a full progress bar and the class balance', async ({ page, shell, platform }, testInfo) => {
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(shell.url);
  await connectPlatform(page, platform, 'ei_test_key');
  await screenshot(page, testInfo, 'settings');

  await openView(page, 'Samples');
  await expect(page.getByTestId('samples-empty')).toContainText('No samples yet — drop files here, or capture from the Live tab');
  await addFiles(page, [
    sensorFile('idle.01.cbor', 1),
    sensorFile('idle.02.cbor', 100),
    sensorFile('wave.01.cbor', 200),
    { name: 'broken.01.cbor', mimeType: 'application/cbor', buffer: Buffer.from('this is not CBOR') },
    { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not a sample') },
  ]);

  const files = page.getByTestId('import-files');
  await expect(files.locator('li[data-status=added]')).toHaveCount(4);
  const refused = files.locator('li[data-status=refused]');
  await expect(refused).toContainText('notes.txt');
  await expect(refused).toContainText('does not accept .txt');
  await expect(page.getByTestId('import-summary')).toHaveText('Added 4 of 5 files.');

  const table = page.getByTestId('sample-table');
  await expect(table.locator('tbody tr[data-state=uploaded]')).toHaveCount(3, { timeout: 20_000 });
  // The platform refuses the broken file: its row says why, and the round still completes.
  const rejected = table.locator('tbody tr[data-state=rejected]');
  await expect(rejected).toHaveCount(1);
  await expect(rejected.locator('td.note')).not.toBeEmpty();
  await expect(page.getByTestId('queue-progress')).toHaveAttribute('aria-valuenow', '100');
  await expect(page.getByTestId('queue-counts')).toContainText('0 queued · 0 uploading · 3 uploaded · 1 rejected');
  // Retry sends it again through the real queue; the platform refuses it again, and says so again.
  await page.getByTestId('queue').getByRole('button', { name: 'Retry 1 rejected' }).click();
  await expect(page.getByTestId('notices')).toContainText('1 sample queued again.');
  await expect(rejected).toHaveCount(1, { timeout: 20_000 });
  await expect(page.getByTestId('queue-counts')).toContainText('0 queued · 0 uploading · 3 uploaded · 1 rejected', { timeout: 20_000 });
  await expect(page.getByTestId('queue').getByRole('button', { name: 'Retry 1 rejected' })).toBeVisible();
  await expect(page.getByTestId('queue-online')).toHaveText('Online');
  expect(platform.samples.map((s) => `${s.originalName} ${s.label} ${s.category}`).sort()).toEqual([
    'idle.01.cbor idle training',
    'idle.02.cbor idle training',
    'wave.01.cbor wave training',
  ]);

  // The class balance asks the management API again once the uploads have settled.
  const balance = page.getByTestId('class-balance');
  await expect(balance.locator('tr[data-label=idle] td[data-category=training] [data-testid=platform-count]')).toHaveText('2', { timeout: 10_000 });
  await expect(balance.locator('tr[data-label=wave] td[data-category=training] [data-testid=platform-count]')).toHaveText('1');
  await expect(balance.locator('tr[data-label=idle] td[data-category=testing] [data-testid=platform-count]')).toHaveText('0');
  await expect(balance.getByTestId('local-count')).toHaveCount(0);
  await expect(balance.getByTestId('platform-error')).toHaveCount(0);
  await screenshot(page, testInfo, 'samples');

  // Changing the category of an uploaded sample moves it on the platform.
  await table.locator('tbody tr', { hasText: 'wave.01.cbor' }).getByRole('checkbox').check();
  const bulk = page.getByTestId('bulk-actions');
  await bulk.getByLabel('New category').selectOption('testing');
  await bulk.getByRole('button', { name: 'Set category' }).click();
  await expect(page.getByRole('status').filter({ hasText: '1 sample set to testing (1 moved on the platform).' })).toBeVisible();
  expect(platform.samples.find((s) => s.originalName === 'wave.01.cbor')?.category).toBe('testing');
  await expect(balance.locator('tr[data-label=wave] td[data-category=testing] [data-testid=platform-count]')).toHaveText('1', { timeout: 10_000 });

  // Targets per label show what to record next: one for a recorded label, one for a new label.
  await balance.getByLabel('Target for idle').fill('4');
  await balance.getByLabel('Target for idle').press('Enter');
  await expect(balance.locator('tr[data-label=idle] [data-testid=target-progress]')).toHaveText('2/4');
  await balance.getByLabel('Target for a label').fill('knock');
  await balance.getByLabel('samples', { exact: true }).fill('10');
  await balance.getByRole('button', { name: 'Set target' }).click();
  await expect(balance.locator('tr[data-label=knock] [data-testid=target-progress]')).toHaveText('0/10');
  await balance.getByLabel('Target for a label').fill('tap');
  await balance.getByLabel('samples', { exact: true }).fill('many');
  await balance.getByRole('button', { name: 'Set target' }).click();
  await expect(balance.getByRole('alert')).toContainText('Target for "tap" must be a whole number from 1 to 1,000,000, or empty for none.');
  await screenshot(page, testInfo, 'class-balance-targets');
  // Targets are settings of the core: a reload (or the other shell) sees them.
  await page.reload();
  await openView(page, 'Samples');
  await expect(page.getByTestId('class-balance').locator('tr[data-label=knock] [data-testid=target-progress]')).toHaveText('0/10', { timeout: 10_000 });
  expect(pageErrors).toEqual([]);
});

test('local samples are selected with shift-click and Ctrl+A, relabelled, and deleted after a confirm step', async ({ page, shell }, testInfo) => {
  await page.goto(shell.url);
  await openView(page, 'Samples');
  await expect(page.getByTestId('samples-empty')).toBeVisible();
  await screenshot(page, testInfo, 'samples-empty');

  await page.getByLabel('Queue for upload now').uncheck();
  await dropFiles(page, [
    { name: 'idle.1.cbor', buffer: sensorFile('x', 1).buffer },
    { name: 'idle.2.cbor', buffer: sensorFile('x', 50).buffer },
    { name: 'noise.1.cbor', buffer: sensorFile('x', 90).buffer },
    { name: 'huge.wav', zeros: 32 * 1024 * 1024 + 1 },
  ]);
  await expect(page.getByTestId('import-files').locator('li[data-status=refused]')).toContainText('the limit for files added in the browser; use the desktop app or `capture-desk upload` for big files');

  const rows = page.getByTestId('sample-table').locator('tbody tr');
  await expect(rows).toHaveCount(3);
  await expect(rows.locator('[data-state]')).toHaveText(['local', 'local', 'local']);
  await expect(page.getByTestId('queue-counts')).toContainText('3 local, not queued');
  // Newest first by default; by name the order below is the same on every machine.
  await page.getByTestId('sample-table').locator('th[data-sort-key=name] button').click();
  await expect(rows.locator('td.name')).toHaveText(['idle.1.cbor', 'idle.2.cbor', 'noise.1.cbor']);

  // Tick the first, shift-tick the third: the range in between joins.
  await rows.nth(0).getByRole('checkbox').check();
  await rows.nth(2).getByRole('checkbox').click({ modifiers: ['Shift'] });
  await expect(page.getByTestId('selected-count')).toHaveText('3 samples selected');
  await rows.nth(2).getByRole('checkbox').uncheck();
  await expect(page.getByTestId('selected-count')).toHaveText('2 samples selected');

  const bulk = page.getByTestId('bulk-actions');
  await bulk.getByLabel('New label').fill('walk');
  await bulk.getByRole('button', { name: 'Set label' }).click();
  await expect(rows.locator('td.label')).toHaveText(['walk', 'walk', 'noise']);
  await expect(page.getByRole('status').filter({ hasText: '2 samples labelled "walk".' })).toBeVisible();

  // Ctrl+A while the table has focus selects every row shown; Escape clears.
  await page.getByTestId('sample-table').focus();
  await page.keyboard.press('Escape');
  await expect(bulk).toHaveCount(0);
  await page.keyboard.press('ControlOrMeta+a');
  await expect(page.getByTestId('selected-count')).toHaveText('3 samples selected');
  await page.keyboard.press('Escape');

  // Delete needs a second click.
  await rows.nth(2).locator('td.name').click();
  await expect(page.getByTestId('selected-count')).toHaveText('1 sample selected');
  await bulk.getByRole('button', { name: 'Delete…' }).click();
  await expect(bulk.getByRole('alert')).toContainText('Delete 1 sample?');
  await screenshot(page, testInfo, 'delete-confirm');
  await bulk.getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(rows).toHaveCount(2);
  await expect(rows.locator('td.name')).toHaveText(['idle.1.cbor', 'idle.2.cbor']);

  // No project ID: the class balance says why there are no platform counts, and shows local ones.
  const balance = page.getByTestId('class-balance');
  await expect(balance.getByTestId('platform-error')).toContainText('Set the project ID in Settings first');
  await expect(balance.locator('tr[data-label=walk] td[data-category=training] [data-testid=local-count]')).toHaveText('2');
  await expect(balance.locator('tr[data-label=noise]')).toHaveCount(0);
});

test('a refused API key pauses uploads with the reason; a good key resumes them, and Pause/Resume work', async ({ page, shell, platform }, testInfo) => {
  await page.goto(shell.url);
  await connectPlatform(page, platform, 'ei_wrong_key');
  await openView(page, 'Samples');
  await addFiles(page, [sensorFile('idle.01.cbor', 1)]);

  const paused = page.getByTestId('queue-paused');
  await expect(paused).toContainText('refused the API key');
  await expect(page.getByTestId('tab-badge-samples')).toHaveText('paused');
  await expect(page.getByTestId('sample-table').locator('tbody tr')).toHaveAttribute('data-state', 'queued');
  await screenshot(page, testInfo, 'paused');
  expect(platform.samples).toHaveLength(0);

  await paused.getByRole('button', { name: 'Open Settings' }).click();
  await expect(page.getByRole('tab', { name: 'Settings' })).toHaveAttribute('aria-selected', 'true');
  const row = page.getByTestId('key-api-key');
  await row.locator('input[type=password]').fill('ei_test_key');
  await row.getByRole('button', { name: 'Save' }).click();

  await openView(page, 'Samples');
  await expect(page.getByTestId('queue-paused')).toHaveCount(0);
  await expect(page.getByTestId('sample-table').locator('tbody tr')).toHaveAttribute('data-state', 'uploaded', { timeout: 20_000 });
  expect(platform.samples).toHaveLength(1);

  // Paused by hand, new samples wait; Resume sends them.
  await page.getByTestId('queue').getByRole('button', { name: 'Pause' }).click();
  await expect(page.getByTestId('queue-paused')).toContainText('Paused by you.');
  await addFiles(page, [sensorFile('idle.02.cbor', 7)]);
  const second = page.getByTestId('sample-table').locator('tbody tr', { hasText: 'idle.02.cbor' });
  await expect(second).toHaveAttribute('data-state', 'queued');
  await expect(page.getByTestId('queue-progress')).toHaveAttribute('aria-valuenow', '0');
  await page.getByTestId('queue').getByRole('button', { name: 'Resume' }).click();
  await expect(second).toHaveAttribute('data-state', 'uploaded', { timeout: 20_000 });
  await expect(page.getByTestId('queue-progress')).toHaveAttribute('aria-valuenow', '100');
  expect(platform.samples.map((s) => s.originalName).sort()).toEqual(['idle.01.cbor', 'idle.02.cbor']);
});

test('a long import shows its progress and can be cancelled: files not yet added stay out, added ones stay in', async ({ page, shell }) => {
  await page.goto(shell.url);
  await openView(page, 'Samples');
  await page.getByTestId('import').getByLabel('Queue for upload now').uncheck();
  await addFiles(page, Array.from({ length: 600 }, (_, i) => sensorFile(`bulk.${i}.cbor`, i)));
  await expect(page.getByTestId('import-summary')).toContainText(/Adding \d+ of 600/);
  await page.getByTestId('import-cancel').click();
  const summary = page.getByTestId('import-summary');
  await expect(summary).toContainText('(cancelled)', { timeout: 10_000 });
  const added = Number(/Added (\d+) of 600/.exec((await summary.textContent()) ?? '')?.[1]);
  expect(added).toBeGreaterThan(0);
  expect(added).toBeLessThan(600);
  await expect(page.getByTestId('import-files').locator('li[data-status=cancelled]')).toHaveCount(600 - added);
  // Exactly the added files became samples: nothing half-added, nothing lost.
  await expect(page.getByTestId('sample-table').locator('tbody tr')).toHaveCount(Math.min(added, 500), { timeout: 10_000 });
});

test('a delete confirmed from the keyboard leaves the keyboard on the samples table, not at the page’s start', async ({ page, shell }) => {
  // The bar goes with its samples: the focus fell to <body>, and Tab started again at the tabs.
  await page.goto(shell.url);
  await openView(page, 'Samples');
  await page.getByLabel('Queue for upload now').uncheck();
  await addFiles(page, [sensorFile('idle.01.cbor', 1), sensorFile('idle.02.cbor', 2), sensorFile('wave.01.cbor', 3)]);
  const table = page.getByTestId('sample-table');
  await expect(table.locator('tbody tr')).toHaveCount(3);
  await table.getByRole('checkbox', { name: 'Select idle.01.cbor' }).check();
  await table.getByRole('checkbox', { name: 'Select wave.01.cbor' }).check();
  const bulk = page.getByTestId('bulk-actions');
  await bulk.getByRole('button', { name: 'Delete…' }).focus();
  await page.keyboard.press('Enter');
  await expect(bulk.getByRole('button', { name: 'Cancel' })).toBeFocused(); // the safe answer first
  await page.keyboard.press('Shift+Tab');
  await expect(bulk.getByRole('button', { name: 'Delete', exact: true })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: '2 samples deleted.' })).toBeVisible();
  await expect(table.locator('tbody tr')).toHaveCount(1);
  await expect(bulk).toHaveCount(0);
  await expect(table).toBeFocused();
});
