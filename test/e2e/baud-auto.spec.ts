import { LINE_BOARD } from '../support/boards/board-on-pty.js';
import { openPort } from './app-page.js';
import { expect, test } from './fixtures.js';

test('a board at 57600 baud (emulated UART: garbage at any other rate) is read at its rate, found by itself: "Auto · 57600"', async ({ page, shell, board }, testInfo) => {
  const { pty } = await board(LINE_BOARD, ['--rate', '100'], { boardBaud: 57_600 });
  await page.goto(shell.url);
  await openPort(page, pty.hostPath);

  await expect(page.getByTestId('stream-baud')).toHaveText('Auto · 57600 baud', { timeout: 15_000 });
  const rows = page.getByTestId('rows-received');
  await expect.poll(async () => Number(await rows.textContent()), { timeout: 15_000 }).toBeGreaterThan(200);
  // Nothing read at a wrong rate reached the reader: three axes, and at most one bad line, the one
  // the stream began in (cut), as on any board.
  await expect(page.getByTestId('stream-stats')).toContainText('value1, value2, value3');
  await expect(page.getByTestId('bad-lines')).toHaveText(/^[01] bad lines?$/);
  // The port's baud control: Auto (the default), saying what it found.
  const baud = page.getByTestId('port-settings').getByLabel('Baud');
  await expect(baud).toHaveValue('auto');
  await expect(baud.locator('option[value="auto"]')).toHaveText('Auto · 57600');
  // The device list says it too, in the stream's words.
  await expect(page.locator(`[data-source-id="serial:${pty.hostPath}"]`).getByTestId('device-name')).toHaveText(new RegExp(`^${pty.hostPath} \\(added by path\\) · 57600 · 3 axes · \\d+(\\.\\d+)? Hz$`), { timeout: 10_000 });
  await page.screenshot({ path: testInfo.outputPath('baud-auto.png'), fullPage: true });
  await testInfo.attach('baud-auto', { path: testInfo.outputPath('baud-auto.png'), contentType: 'image/png' });
});

// The other rates the issue names, each through the emulated UART: the rate found, said in the
// port's control and the device list, and whole rows of three axes reaching the page.
for (const [baud, rate] of [[9_600, 20], [115_200, 100], [250_000, 100], [921_600, 100]] as const) {
  test(`a board at ${baud} baud is found and read at its rate: "Auto · ${baud}" in the control and the device list`, async ({ page, shell, board }) => {
    const { pty } = await board(LINE_BOARD, ['--rate', String(rate)], { boardBaud: baud });
    await page.goto(shell.url);
    await openPort(page, pty.hostPath);
    await expect(page.getByTestId('stream-baud')).toHaveText(`Auto · ${baud} baud`, { timeout: 15_000 });
    await expect.poll(async () => Number(await page.getByTestId('rows-received').textContent()), { timeout: 15_000 }).toBeGreaterThan(rate * 2);
    await expect(page.getByTestId('stream-stats')).toContainText('value1, value2, value3');
    await expect(page.getByTestId('bad-lines')).toHaveText(/^[01] bad lines?$/);
    await expect(page.getByTestId('port-settings').getByLabel('Baud').locator('option[value="auto"]')).toHaveText(`Auto · ${baud}`);
    await expect(page.locator(`[data-source-id="serial:${pty.hostPath}"]`).getByTestId('device-name')).toHaveText(new RegExp(`^${pty.hostPath} \\(added by path\\) · ${baud} · 3 axes · (measuring its rate|\\d+(\\.\\d+)? Hz)$`), { timeout: 10_000 });
  });
}
