import type { Page } from '@playwright/test';
import { LINE_BOARD } from '../support/boards/board-on-pty.js';
import { connectPlatform, openBoardLive, openView, pressAfterPauses, screenshot } from './app-page.js';
import { expect, test } from './fixtures.js';
import { dragAcrossPlot } from './sample-views.js';

/**
 * The afternoon of a lab engineer, in one go on the browser shell: two simulated boards on PTYs,
 * a capture with events marked by number keys kept local for review, crop and split around the
 * events, the original discarded, a capture from a board that stalls flagged and held back, the
 * rest uploaded to the ingestion emulator, and the class balance showing what arrived.
 */

const rows = (page: Page) => page.getByTestId('sample-table').locator('tbody tr');
const named = (page: Page, name: RegExp) => page.getByTestId('sample-table').locator('tbody tr', { has: page.locator('td.name', { hasText: name }) });

/** Keys go to the page, not to the field that had focus. */
const focusPage = (page: Page) => page.locator('body').click({ position: { x: 5, y: 400 } });

test('record with events → review, crop, split → quality hold on a gapped capture → upload → class balance', async ({ page, shell, platform, board }, testInfo) => {
  test.setTimeout(120_000);
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  const lineBoard = async (...args: string[]) => (await board(LINE_BOARD, ['--rate', '100', '--axes', '3', ...args])).pty;
  const clean = await lineBoard();
  // This board stalls 300 ms every second; the readings due meanwhile are never sent.
  const stalling = await lineBoard('--pause-every', '1000:300');

  await page.goto(shell.url);
  await connectPlatform(page, platform, 'ei_test_key');
  const quality = page.getByTestId('quality-settings');
  await quality.getByLabel('Hold back samples with errors').check();
  await quality.getByLabel('Minimum length (seconds, 0 = none)').fill('0');
  await page.getByTestId('settings').getByRole('button', { name: 'Save settings' }).click();
  await expect(page.getByTestId('settings').getByRole('status')).toHaveText('Saved.');
  await screenshot(page, testInfo, '01-settings');

  // 1. The clean board, recorded until stopped, with two events marked; kept local for review.
  await openBoardLive(page, clean.hostPath, 100);
  const bar = page.getByTestId('record-bar');
  await bar.getByLabel('Label', { exact: true }).fill('gesture');
  await bar.getByLabel('Length (s)').fill('');
  await bar.getByLabel('Upload when saved').uncheck();
  await bar.getByTestId('event-names').fill('tap, shake');
  await bar.getByTestId('event-names').press('Tab');
  await bar.getByRole('button', { name: '+ Add key' }).click();
  await bar.getByLabel('Metadata key 1').fill('subject');
  await bar.getByLabel('Metadata value 1').fill('ana');
  await focusPage(page);
  await page.keyboard.press('Space');
  await expect(page.getByTestId('recording-indicator')).toContainText('REC');
  await pressAfterPauses(page, [[500, '1'], [600, '2'], [600, '0']]);
  await page.waitForTimeout(500);
  await expect(page.getByTestId('marked-events').locator('li')).toHaveCount(2);
  await screenshot(page, testInfo, '02-recording-with-events');
  await page.keyboard.press('Space');
  await expect(page.getByTestId('recording-saved')).toContainText('Saved 1 sample, kept local for review', { timeout: 10_000 });
  await expect(page.getByRole('status').filter({ hasText: 'Saved 1 sample; kept local (not queued).' })).toBeVisible();

  // 2. The stalling board, 3 s, straight to the queue: the quality rule holds it back.
  await openBoardLive(page, stalling.hostPath, 300);
  await bar.getByLabel('Label', { exact: true }).fill('gapped');
  await bar.getByLabel('Length (s)').fill('3');
  await bar.getByLabel('Upload when saved').check();
  await focusPage(page);
  await page.keyboard.press('Space');
  await expect(page.getByTestId('recording-saved')).toContainText('Saved 1 sample, 1 held back', { timeout: 15_000 });
  await expect(page.getByRole('status').filter({ hasText: 'Saved 1 sample. 1 held back by data-quality checks' })).toBeVisible();
  await screenshot(page, testInfo, '03-live-after-captures');

  // 3. Samples: nothing went up; the gapped capture carries an error badge.
  await openView(page, 'Samples');
  await expect(rows(page)).toHaveCount(2);
  const gapped = named(page, /^gapped\.[0-9a-f]{8}\.cbor$/);
  await expect(gapped.getByTestId('quality-cell')).toHaveAttribute('data-flagged', 'error');
  await expect(gapped.getByTestId('quality-badge')).toContainText(/Gaps|Irregular timing/);
  await expect(gapped.getByTestId('quality-cell')).toContainText('held back');
  const capture = named(page, /^gesture\.[0-9a-f]{8}\.cbor$/);
  await expect(capture.getByTestId('quality-cell')).not.toHaveAttribute('data-flagged', 'error');
  expect(platform.samples).toHaveLength(0);
  await screenshot(page, testInfo, '04-samples-with-badge');

  // 4. Review the event capture: every axis and the events; crop the middle, split around events.
  const captureName = (await capture.locator('td.name').textContent())!.trim();
  await capture.dblclick();
  const view = page.getByTestId('sample-view');
  await expect(view.getByTestId('review-plot')).toHaveAttribute('data-painted', 'true');
  await expect(view).toContainText('4 marked events'); // gesture, tap, shake, gesture
  await expect(view).toContainText(/rows every \d+(\.\d{1,3})? ms/); // a measured interval, rounded for reading
  await dragAcrossPlot(page, view, 0.25, 0.75);
  await expect(view.getByTestId('view-range')).toContainText('selected');
  await screenshot(page, testInfo, '05-review-selection');
  await page.keyboard.press('c');
  const cropName = captureName.replace(/\.cbor$/, '.crop.cbor');
  await expect(view.getByTestId('review-status')).toContainText(`Cropped to a new sample "${cropName}"`);

  await page.keyboard.press('s');
  const split = view.getByTestId('split-panel');
  await split.getByLabel('Around marked events').check();
  await split.getByLabel('Padding (ms)').fill('50');
  await split.getByRole('button', { name: 'Split' }).click();
  await expect(view.getByTestId('review-status')).toHaveText('Split into 4 new samples; the original stays.', { timeout: 20_000 });
  await screenshot(page, testInfo, '06-review-split');
  await expect(split).toBeHidden(); // a finished split closes its panel

  // The original goes once its parts exist.
  await view.getByRole('button', { name: 'Discard original…' }).click();
  await view.getByRole('button', { name: 'Discard original', exact: true }).click();
  await expect(view).toBeHidden();
  await expect(named(page, new RegExp(`^${captureName.replace(/\./g, '\\.')}$`))).toHaveCount(0);
  await expect(rows(page)).toHaveCount(6); // gapped + crop + 4 windows
  const labels = (await page.getByTestId('sample-table').locator('tbody tr td.label').allTextContents()).map((s) => s.trim()).sort();
  expect(labels).toEqual(expect.arrayContaining(['gapped', 'tap', 'shake']));

  // 5. Queue everything: the gapped capture is held back, the rest reach the platform.
  await page.getByRole('checkbox', { name: 'Select all samples shown' }).check();
  await page.getByTestId('bulk-actions').getByRole('button', { name: 'Queue for upload' }).click();
  await expect(page.getByRole('status').filter({ hasText: /samples? queued for upload\. 1 held back by data-quality checks/ })).toBeVisible();
  await expect.poll(() => platform.samples.length, { timeout: 20_000 }).toBe(5);
  const sent = platform.samples.map((s) => s.originalName);
  expect(sent).not.toContain(expect.stringMatching(/^gapped\./));
  expect(sent).toContain(cropName);
  for (const s of platform.samples) expect(s.metadata).toMatchObject({ subject: 'ana' });
  const tap = platform.samples.find((s) => s.label === 'tap');
  expect(tap, 'the tap window went up labelled tap').toBeTruthy();
  await expect(gapped).toHaveAttribute('data-state', 'local');
  await expect(page.getByTestId('sample-table').locator('tbody tr[data-state=uploaded]')).toHaveCount(5, { timeout: 15_000 });

  // 6. The class balance asks the platform again and shows what arrived, and what is still local.
  const balance = page.getByTestId('class-balance');
  await expect(balance.locator('tr[data-label=tap] td[data-category=training] [data-testid=platform-count]')).toHaveText('1', { timeout: 15_000 });
  await expect(balance.locator('tr[data-label=shake] td[data-category=training] [data-testid=platform-count]')).toHaveText('1');
  await expect(balance.locator('tr[data-label=gapped] td[data-category=training] [data-testid=local-count]')).toHaveText('1');
  await screenshot(page, testInfo, '07-uploaded-and-balance');
  expect(pageErrors).toEqual([]);
});
