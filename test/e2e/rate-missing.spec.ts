import { NOISY_BOARD } from '../support/boards/board-on-pty.js';
import { runCli } from '../support/cli.js';
import { openView } from './app-page.js';
import { expect, test } from './fixtures.js';

test('a take kept without its rate is finished from the sample view by giving the rate', async ({ page, shell, board }) => {
  // Recorded by the CLI into the same data folder: numbers for 3 s, then noise, so no rate can be measured.
  const { pty } = await board(NOISY_BOARD, ['--rate', '100', '--good-ms', '3000']);
  const r = await runCli(['record', 'serial', '--port', pty.hostPath, '--length-ms', '5000', '--label', 'loose', '--data-dir', shell.dataDir]);
  expect(r.code, r.stderr).toBe(1);

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
