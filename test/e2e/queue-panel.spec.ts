import { expect, test } from './fixtures.js';
import { audit } from './a11y.js';
import { addFiles, connectPlatform, openView, saveKey, screenshot, sensorFile } from './app-page.js';

// Issue 42: a queued item shows the label and category it will be sent with, and editing the
// sample before it is sent changes what is sent.
test('the queue panel lists what waits with the words it goes with; an edit shows there and is what the platform stores', async ({ page, shell, platform }, testInfo) => {
  await page.goto(shell.url);
  await connectPlatform(page, platform, 'ei_wrong_key');
  await openView(page, 'Samples');
  await addFiles(page, [sensorFile('idle.01.cbor', 1)]);
  await expect(page.getByTestId('queue-paused')).toContainText('refused the API key');

  const pending = page.getByTestId('queue-pending');
  const row = pending.getByTestId('queue-pending-row');
  // Closed at first (its rows are not in the page's table of samples); the summary counts them.
  await expect(page.getByTestId('queue-pending-summary')).toHaveText('Waiting to be sent: 1 sample, with the label and category each goes with');
  await expect(row).toBeHidden();
  await page.getByTestId('queue-pending-summary').click();
  await expect(row).toHaveCount(1);
  await expect(row.locator('th, td')).toHaveText(['idle.01.cbor', 'idle (label from file name)', 'training', /^waiting: uploads are paused/, /refused the API key/]);
  await expect(pending.locator('caption')).toHaveText('Waiting to be sent, in queue order');
  await screenshot(page, testInfo, 'queue-pending');
  await audit(page, 'queue panel with a waiting sample', '[data-testid=queue]');

  // Relabel and move it in the samples table while it waits: the panel follows.
  const table = page.getByTestId('sample-table');
  await table.locator('tbody tr', { hasText: 'idle.01.cbor' }).getByRole('checkbox').check();
  const bulk = page.getByTestId('bulk-actions');
  await bulk.getByLabel('New label').fill('wave');
  await bulk.getByRole('button', { name: 'Set label' }).click();
  await expect(row.locator('td').nth(0)).toHaveText('wave');
  await expect(row.locator('td').nth(1)).toHaveText('training');

  // A valid key: it goes, with the label it was given.
  await openView(page, 'Settings');
  await saveKey(page, 'api-key', 'ei_test_key');
  await openView(page, 'Samples');
  await expect(pending).toHaveCount(0, { timeout: 20_000 });
  await expect.poll(() => platform.samples.map((s) => [s.originalName, s.label, s.category])).toEqual([['idle.01.cbor', 'wave', 'training']]);
});
