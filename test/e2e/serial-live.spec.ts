import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { openPtyPair } from '../support/boards/pty.js';
import { expect, test } from './fixtures.js';

const LINE_BOARD = fileURLToPath(new URL('../support/boards/line-board.mjs', import.meta.url));

test('a board on a pseudo-terminal is opened by path and plotted live with its rate and bad lines', async ({ page, shell }, testInfo) => {
  const pty = await openPtyPair();
  const board = spawn(process.execPath, [LINE_BOARD, '--port', pty.boardPath, '--rate', '200', '--bad-every', '50', '--axes', '3'], { stdio: 'ignore' });
  try {
    await page.goto(shell.url);
    await page.getByLabel('Open a port by path').fill(pty.hostPath);
    await page.getByRole('button', { name: 'Open', exact: true }).click();

    const option = page.locator(`[data-source-id="serial:${pty.hostPath}"]`);
    await expect(option).toHaveAttribute('aria-selected', 'true');
    const rows = page.getByTestId('rows-received');
    await expect.poll(async () => Number(await rows.textContent()), { timeout: 15_000 }).toBeGreaterThan(300);
    const health = page.getByTestId('stream-health');
    await expect(health).toContainText(/measured 19\d\.\d\d Hz|measured 20\d\.\d\d Hz/, { timeout: 10_000 });
    await expect.poll(async () => Number((await page.getByTestId('bad-lines').textContent())?.split(' ')[0]), { timeout: 10_000 }).toBeGreaterThan(0);
    await page.screenshot({ path: testInfo.outputPath('serial-live.png'), fullPage: true });
    await testInfo.attach('serial-live', { path: testInfo.outputPath('serial-live.png'), contentType: 'image/png' });

    // Unplug: the view says so instead of freezing silently.
    await pty.close();
    await expect(page.getByTestId('stream-problem')).toContainText(/disconnected/i, { timeout: 10_000 });
  } finally {
    board.kill('SIGKILL');
    await pty.close();
  }
});
