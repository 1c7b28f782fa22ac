import { LINE_BOARD } from '../support/boards/board-on-pty.js';
import { connectPlatform, openView, screenshot, openPort } from './app-page.js';
import { expect, test } from './fixtures.js';

test('a capture with gaps gets an error badge and is held back; "Upload anyway" sends it', async ({ page, shell, platform, board }, testInfo) => {
  // The board stalls for 300 ms every second; the readings due meanwhile are never sent.
  const { pty } = await board(LINE_BOARD, ['--rate', '100', '--axes', '3', '--pause-every', '1000:300']);
  await page.goto(shell.url);
  await connectPlatform(page, platform, 'ei_test_key');
  // Turn the rule on (this world starts with it off) through the Data quality panel, by keyboard.
  const quality = page.getByTestId('quality-settings');
  await quality.getByLabel('Hold back samples with errors').focus();
  await page.keyboard.press('Space');
  await expect(quality.getByLabel('Hold back samples with errors')).toBeChecked();
  await quality.getByLabel('Minimum length (seconds, 0 = none)').fill('1');
  await page.getByTestId('settings').getByRole('button', { name: 'Save settings' }).click();
  await expect(page.getByTestId('settings').getByRole('status')).toHaveText('Saved.');
  await screenshot(page, testInfo, 'quality-settings');

  await openView(page, 'Live');
  // A few stalls go by before the capture starts, as when a person sets up the next recording.
  await openPort(page, pty.hostPath, { rowsOver: 300 });
  const bar = page.getByTestId('record-bar');
  await bar.getByLabel('Label', { exact: true }).fill('gapped');
  await bar.getByLabel('Length (s)').fill('4');
  await page.locator('body').click({ position: { x: 5, y: 400 } });
  await page.keyboard.press('Space');
  await expect(page.getByTestId('recording-saved')).toContainText('Saved 1 sample, 1 held back', { timeout: 15_000 });

  await openView(page, 'Samples');
  const row = page.getByTestId('sample-table').locator('tbody tr', { hasText: /gapped\.[0-9a-f]{8}\.cbor/ });
  await expect(row).toHaveAttribute('data-state', 'local');
  // The stalls show as lost readings, or as arrivals far off a steady clock when the reader
  // took them for a slower rate: an error either way.
  const cell = row.getByTestId('quality-cell');
  await expect(cell).toHaveAttribute('data-flagged', 'error');
  const badge = row.getByTestId('quality-badge');
  await expect(badge).toContainText(/Gaps|Irregular timing/);
  await expect(badge).toHaveAttribute('title', /never arrived while recording|arrived \d+ ms away from a steady/);
  await expect(row.getByTestId('quality-cell')).toContainText('held back');
  // Keyboard: the badge opens the full messages.
  await badge.focus();
  await page.keyboard.press('Enter');
  await expect(badge).toHaveAttribute('aria-expanded', 'true');
  await expect(row.getByTestId('quality-details')).toContainText(/never arrived while recording|arrived \d+ ms away from a steady/);
  await expect(row.getByTestId('quality-details')).toContainText('record again');
  // Checking again reads the file and the capture's counters anew: same verdict.
  await row.getByTestId('quality-check-again').click();
  await expect(row.getByTestId('quality-check-again')).toBeEnabled();
  await expect(cell).toHaveAttribute('data-flagged', 'error');

  // The Flagged filter shows it; the platform has nothing yet.
  await page.getByTestId('sample-table').scrollIntoViewIfNeeded();
  await expect(page.locator('button[data-filter=flagged]')).toHaveText('Flagged1');
  await page.locator('button[data-filter=flagged]').click();
  await expect(page.getByTestId('sample-table').locator('tbody tr')).toHaveCount(1);
  await screenshot(page, testInfo, 'quality-badge');
  await page.waitForTimeout(1000);
  expect(platform.samples).toHaveLength(0);

  // Held: the ordinary "Queue for upload" keeps it back and says so.
  await page.getByTestId('sample-table').locator('tbody tr').getByRole('checkbox').check();
  await page.getByTestId('bulk-actions').getByRole('button', { name: 'Queue for upload' }).click();
  await expect(page.getByRole('status').filter({ hasText: /samples? queued for upload\. 1 held back by data-quality checks/ })).toBeVisible();
  expect(platform.samples).toHaveLength(0);

  await row.getByTestId('upload-anyway').focus();
  await page.keyboard.press('Enter');
  await expect.poll(() => platform.samples.length, { timeout: 15_000 }).toBe(1);
  expect(platform.samples[0]!.originalName).toMatch(/^gapped\.[0-9a-f]{8}\.cbor$/);
  await expect(page.getByTestId('sample-table').locator('tbody tr')).toHaveAttribute('data-state', 'uploaded', { timeout: 15_000 });
  // Still flagged after upload: the badge stays so the user knows what went up.
  await expect(page.getByTestId('sample-table').getByTestId('quality-cell')).toHaveAttribute('data-flagged', 'error');
  await expect(page.getByTestId('upload-anyway')).toHaveCount(0);
  await screenshot(page, testInfo, 'quality-uploaded');
});
