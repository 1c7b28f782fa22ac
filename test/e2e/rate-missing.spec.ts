import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { openPtyPair } from '../support/boards/pty.js';
import { runCli } from '../support/cli.js';
import { openView } from './app-page.js';
import { expect, test } from './fixtures.js';

const NOISY_BOARD = fileURLToPath(new URL('../support/boards/numbers-then-garbage.mjs', import.meta.url));

test('a take kept without its rate is finished from the sample view by giving the rate', async ({ page, shell }) => {
  // Recorded by the CLI into the same data folder: numbers for 3 s, then noise, so no rate can be measured.
  const pty = await openPtyPair();
  const board = spawn(process.execPath, [NOISY_BOARD, '--port', pty.boardPath, '--rate', '100', '--good-ms', '3000'], { stdio: 'ignore' });
  try {
    const r = await runCli(['record', 'serial', '--port', pty.hostPath, '--length-ms', '5000', '--label', 'loose', '--data-dir', shell.dataDir]);
    expect(r.code, r.stderr).toBe(1);
  } finally {
    board.kill('SIGKILL');
    await pty.close();
  }

  await page.goto(shell.url);
  await openView(page, 'Samples');
  const row = page.getByTestId('sample-table').locator('tbody tr', { hasText: 'loose' });
  await expect(row).toHaveCount(1);
  await row.dblclick();
  const view = page.getByTestId('sample-view');
  const panel = view.getByTestId('rate-missing');
  await expect(panel).toContainText('Sampling rate unknown');
  await expect(view).toContainText('rows every 1 ms'); // the placeholder, said as such in the panel
  await expect(panel.getByRole('button', { name: 'Set rate' })).toBeDisabled();
  await panel.getByLabel('Sampling rate in hertz').fill('100');
  await panel.getByRole('button', { name: 'Set rate' }).click();
  await expect(view.getByTestId('review-status')).toContainText(/Finished "loose\..*" at 100 Hz .* it can be uploaded now/);
  await expect(view).toContainText('rows every 10 ms');
  await expect(panel).toHaveCount(0);
});
