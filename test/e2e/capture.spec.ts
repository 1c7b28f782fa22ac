import { LINE_BOARD } from '../support/boards/board-on-pty.js';
import { connectPlatform, openView, openPort } from './app-page.js';
import { expect, test } from './fixtures.js';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a board over a PTY is recorded with events marked by number keys; the upload carries them as structured labels', async ({ page, shell, platform, board }, testInfo) => {
  const { pty } = await board(LINE_BOARD, ['--rate', '100', '--axes', '3']);
  await page.goto(shell.url);
  await connectPlatform(page, platform, 'ei_test_key');
  await openView(page, 'Live');
  await openPort(page, pty.hostPath, { rowsOver: 100 });

  const panel = page.getByTestId('record-bar');
  await panel.getByLabel('Label', { exact: true }).fill('gesture');
  await panel.getByLabel('Length (s)').fill(''); // until stopped
  await panel.getByTestId('event-names').fill('tap, shake');
  await panel.getByTestId('event-names').press('Tab');
  await expect(panel.getByTestId('event-keys')).toContainText('1 tap');
  await expect(panel.getByTestId('event-keys')).toContainText('2 shake');
  await panel.getByRole('button', { name: '+ Add key' }).click();
  await panel.getByLabel('Metadata key 1').fill('subject');
  await panel.getByLabel('Metadata value 1').fill('ana');

  await page.locator('body').click({ position: { x: 5, y: 400 } }); // keys go to the page, not a field
  await page.keyboard.press('Space');
  await expect(page.getByTestId('recording-indicator')).toContainText('REC');
  await pause(400);
  await page.keyboard.press('1'); // tap starts
  await pause(500);
  await page.keyboard.press('2'); // shake starts, tap ends
  await expect(panel.locator('.chip.open')).toContainText('shake');
  await pause(500);
  await page.keyboard.press('0'); // shake ends
  await pause(400);
  const marked = page.getByTestId('marked-events');
  await expect(marked.locator('li')).toHaveCount(2);
  await expect(marked).toContainText(/tap \d+\.\d–\d+\.\d s/);
  await page.screenshot({ path: testInfo.outputPath('capture-events.png'), fullPage: true });
  await testInfo.attach('capture-events', { path: testInfo.outputPath('capture-events.png'), contentType: 'image/png' });
  await page.keyboard.press('Space');
  await expect(page.getByTestId('recording-saved')).toContainText('Saved 1 sample', { timeout: 10_000 });

  // The platform got the sample with its events, in order, covering the whole sample.
  await expect.poll(() => platform.samples.length, { timeout: 15_000 }).toBe(1);
  const got = platform.samples[0]!;
  expect(got.label).toBeNull(); // a multi-label sample: its labels are the structured ones
  expect(got.metadata).toMatchObject({ subject: 'ana' });
  expect(got.structuredLabels?.map((l) => l.label)).toEqual(['gesture', 'tap', 'shake', 'gesture']);
  const lens = got.structuredLabels!.map((l) => l.endIndex - l.startIndex + 1);
  expect(lens[1]).toBeGreaterThan(20); // ~50 rows at 100 Hz; loose for a busy machine
  expect(lens[2]).toBeGreaterThan(20);

  // The label is now a recent one, a digit away; metadata stays for the next capture.
  await panel.getByLabel('Label', { exact: true }).fill('other');
  await page.locator('body').click({ position: { x: 5, y: 400 } });
  await page.keyboard.press('1');
  await expect(panel.getByLabel('Label', { exact: true })).toHaveValue('gesture');
  await expect(panel.getByLabel('Metadata value 1')).toHaveValue('ana');
});

test('a countdown precedes the recording and Esc cancels it; ? shows the shortcut sheet', async ({ page, shell }) => {
  await page.goto(shell.url);
  await expect.poll(async () => Number(await page.getByTestId('rows-received').textContent()), { timeout: 10_000 }).toBeGreaterThan(10);
  const panel = page.getByTestId('record-bar');
  await panel.getByLabel('Countdown').selectOption('3');
  await page.locator('body').click({ position: { x: 5, y: 400 } });
  await page.keyboard.press('Space');
  await expect(page.getByTestId('countdown')).toContainText(/Recording in [23]/);
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('countdown')).toHaveCount(0);
  await pause(3500);
  await expect(page.getByTestId('recording-indicator')).toHaveCount(0); // cancelled means never started

  // Settings survive a reload (they stick for the session).
  await page.reload();
  await expect(page.getByTestId('record-bar').getByLabel('Countdown')).toHaveValue('3');

  await page.locator('body').click({ position: { x: 5, y: 400 } });
  await page.keyboard.press('?');
  const sheet = page.getByTestId('shortcut-sheet');
  await expect(sheet).toBeVisible();
  await expect(sheet).toContainText('Start event 1 … 9');
  await page.keyboard.press('Escape');
  await expect(sheet).toBeHidden();
});
