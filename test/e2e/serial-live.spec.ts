import { AT_BOARD, LINE_BOARD } from '../support/boards/board-on-pty.js';
import { openPort, switchToAtMode } from './app-page.js';
import { expect, test } from './fixtures.js';

test('a board on a pseudo-terminal is opened by path and plotted live with its rate and bad lines', async ({ page, shell, board }, testInfo) => {
  const { pty } = await board(LINE_BOARD, ['--rate', '200', '--bad-every', '50', '--axes', '3']);
  await page.goto(shell.url);
  await openPort(page, pty.hostPath);

  const option = page.locator(`[data-source-id="serial:${pty.hostPath}"]`);
  await expect(option).toHaveAttribute('aria-selected', 'true');
  const rows = page.getByTestId('rows-received');
  await expect.poll(async () => Number(await rows.textContent()), { timeout: 15_000 }).toBeGreaterThan(300);
  const health = page.getByTestId('stream-health');
  await expect(health).toContainText(/measured 19\d\.\d\d Hz|measured 20\d\.\d\d Hz/, { timeout: 10_000 });
  await expect.poll(async () => Number((await page.getByTestId('bad-lines').textContent())?.split(' ')[0]), { timeout: 10_000 }).toBeGreaterThan(0);
  // The device list says what the stream says (a PTY has no USB id, so no board name).
  await expect(option.getByTestId('device-name')).toHaveText(new RegExp(`^${pty.hostPath} \\(added by path\\) · 115200 · 3 axes · (19\\d|20\\d)(\\.\\d+)? Hz$`), { timeout: 10_000 });
  await page.screenshot({ path: testInfo.outputPath('serial-live.png'), fullPage: true });
  await testInfo.attach('serial-live', { path: testInfo.outputPath('serial-live.png'), contentType: 'image/png' });

  // Name the axes: the setting is remembered for this port and the stream restarts with it.
  const settings = page.getByTestId('port-settings');
  await settings.getByLabel('Axes').fill('ax, ay, az');
  await settings.getByRole('button', { name: 'Apply' }).click();
  await expect(page.getByTestId('stream-stats')).toContainText('ax, ay, az', { timeout: 10_000 });
  await expect(page.locator('.u-legend')).toContainText('az');

  // Unplug: the view says so instead of freezing silently.
  await pty.close();
  await expect(page.getByTestId('stream-problem')).toContainText(/disconnected/i, { timeout: 10_000 });
});

test('a board with the platform firmware: switched to AT mode, read, and recorded on the board from the UI', async ({ page, shell, board }, testInfo) => {
  const { pty } = await board(AT_BOARD, ['--at-version', '1.6.0', '--storage', 'buffer', '--time-scale', '0.05']);
  await page.goto(shell.url);
  await openPort(page, pty.hostPath);
  const panel = await switchToAtMode(page);
  await expect(panel.getByTestId('at-board')).toContainText('AT 1.6.0');
  await panel.getByLabel('Length (s)').fill('1');
  await panel.getByLabel('Label').fill('knock');
  await panel.getByTestId('at-record').click();
  await expect(panel.getByTestId('at-saved')).toContainText(/Saved knock\..*: \d+ rows/, { timeout: 20_000 });
  await page.screenshot({ path: testInfo.outputPath('at-board.png'), fullPage: true });
  await testInfo.attach('at-board', { path: testInfo.outputPath('at-board.png'), contentType: 'image/png' });

  await page.getByRole('tab', { name: /Samples/ }).click();
  await expect(page.getByRole('row', { name: /knock\./ })).toContainText('training');
});

test('a board with the platform firmware is told by itself: silent when opened, it answers AT, and its port is switched to AT mode', async ({ page, shell, board }) => {
  const { pty } = await board(AT_BOARD, ['--at-version', '1.6.0', '--storage', 'buffer', '--time-scale', '0.05']);
  await page.goto(shell.url);
  await openPort(page, pty.hostPath);
  // Nothing comes for the detection's 5 s; then the board is asked, and it answers.
  const panel = page.getByTestId('at-panel');
  await expect(panel.getByTestId('at-board')).toContainText('SIMULATED_AT_BOARD', { timeout: 30_000 });
  await expect(page.getByText(/runs the platform's firmware \(SIMULATED_AT_BOARD\): its port is now in AT mode/).first()).toBeVisible();
  // Remembered as the port's mode: its settings say so.
  await expect(page.getByTestId('port-settings').getByLabel('Mode')).toHaveValue('at');
});

test('several sources stream at once: the simulator kept on screen while a board is open', async ({ page, shell, board }, testInfo) => {
  const { pty } = await board(LINE_BOARD, ['--rate', '100', '--axes', '2']);
  await page.goto(shell.url);
  await expect.poll(async () => Number(await page.getByTestId('rows-received').textContent()), { timeout: 10_000 }).toBeGreaterThan(10);
  await page.getByTestId('pin').click(); // keep the simulator on screen
  await expect(page.getByTestId('pin')).toHaveAttribute('aria-pressed', 'true');
  await openPort(page, pty.hostPath, { rowsOver: 100 });

  const mini = page.getByTestId('alongside').locator('[data-source-id="simulated:imu"]');
  const count = async () => Number(await mini.getByTestId('mini-rows').textContent());
  const before = await count();
  await expect.poll(count, { timeout: 5000 }).toBeGreaterThan(before + 50); // still live, beside the board
  await expect(mini.getByTestId('live-plot').locator('canvas')).toHaveCount(1);
  await page.screenshot({ path: testInfo.outputPath('two-sources.png'), fullPage: true });
  await testInfo.attach('two-sources', { path: testInfo.outputPath('two-sources.png'), contentType: 'image/png' });

  await mini.getByRole('button', { name: /Stop watching/ }).click();
  await expect(page.getByTestId('alongside')).toHaveCount(0);
});
