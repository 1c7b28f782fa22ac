import { NORDIC_BOARD } from '../support/boards/board-on-pty.js';
import { openPort, recordSavedTake } from './app-page.js';
import { expect, test } from './fixtures.js';

test('a Nordic data-forwarder board is told by its stream, plotted with its names and exact losses, and recorded', async ({ page, shell, board }, testInfo) => {
  const { pty } = await board(NORDIC_BOARD, ['--rate', '400', '--channels', '9', '--si-every-ms', '1000', '--garbage-every', '200', '--lose-every', '1000:3', '--name', 'TAG-e2e']);
  await page.goto(shell.url);
  await openPort(page, pty.hostPath);
  await expect(page.locator(`[data-source-id="serial:${pty.hostPath}"]`)).toHaveAttribute('aria-selected', 'true');

  const health = page.getByTestId('stream-health');
  await expect(health).toContainText('Nordic data forwarder', { timeout: 15_000 });
  await expect(health).toContainText('Nordic data forwarder “TAG-e2e”');
  await expect(health).toContainText('rate from the board 400 Hz');
  await expect(page.getByTestId('nordic-clock')).toHaveCount(0); // its timestamps agree
  await expect(page.getByTestId('stream-stats')).toContainText('ax, ay, az, gx, gy, gz, temp, hum, pres');
  await expect.poll(async () => Number(await page.getByTestId('rows-received').textContent()), { timeout: 15_000 }).toBeGreaterThan(1200);
  // The link loses 3 samples every 1000: counted exactly from the seq numbers; garbage counted as bad frames.
  await expect.poll(async () => Number((await page.getByTestId('nordic-lost').textContent())?.split(' ')[0]), { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
  await expect.poll(async () => Number((await page.getByTestId('bad-lines').textContent())?.split(' ')[0]), { timeout: 10_000 }).toBeGreaterThan(0);
  await page.screenshot({ path: testInfo.outputPath('nordic-live.png'), fullPage: true });
  await testInfo.attach('nordic-live', { path: testInfo.outputPath('nordic-live.png'), contentType: 'image/png' });

  await recordSavedTake(page, 'tag', 1.5);
  await page.getByRole('tab', { name: /Samples/ }).click();
  await expect(page.getByRole('row', { name: /tag\.[0-9a-f]{8}\.cbor/ })).toBeVisible();
});

test("a Nordic board whose own timestamps run at another rate than its session info says: said live, and its take's quality badge says it", async ({ page, shell, board }) => {
  const { pty } = await board(NORDIC_BOARD, ['--rate', '200', '--ts-hz', '190', '--channels', '3', '--si-every-ms', '1000']);
  await page.goto(shell.url);
  await openPort(page, pty.hostPath);
  const health = page.getByTestId('stream-health');
  await expect(health).toContainText('rate from the board 200 Hz', { timeout: 15_000 });
  // Once a second of timestamps has come.
  await expect(page.getByTestId('nordic-clock')).toHaveText(/its timestamps say 19\d\.\d\d Hz/, { timeout: 10_000 });

  await recordSavedTake(page, 'clock', 1);
  await page.getByRole('tab', { name: /Samples/ }).click();
  const row = page.getByRole('row', { name: /clock\.[0-9a-f]{8}\.cbor/ });
  await expect(row.getByTestId('quality-badge')).toContainText('Rate mismatch', { timeout: 15_000 });
});
