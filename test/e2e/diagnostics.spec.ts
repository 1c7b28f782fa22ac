import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connectPlatform, saveKey } from './app-page.js';
import { expect, test } from './fixtures.js';

const API_KEY = `ei_e2e_diag_${Date.now().toString(36)}_secret`;
const HMAC_KEY = `hmac_e2e_diag_${Date.now().toString(36)}_secret`;

test('? offers diagnostics by keyboard: data dir, shell, versions, no key; copied to the clipboard; serve logged to its file', async ({ page, context, shell, platform }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.goto(shell.url);
  await connectPlatform(page, platform, API_KEY);
  await saveKey(page, 'hmac-key', HMAC_KEY);

  await page.locator('body').click({ position: { x: 5, y: 400 } });
  await page.keyboard.press('?');
  const sheet = page.getByTestId('shortcut-sheet');
  await expect(sheet).toBeVisible();
  const open = sheet.getByRole('button', { name: 'Diagnostics…' });
  await expect(open).toBeFocused(); // the dialog's first control: reached without a mouse
  await page.keyboard.press('Enter');

  const text = sheet.getByTestId('diagnostics-text');
  await expect(text).toHaveValue(/^Capture Desk diagnostics/);
  const report = await text.inputValue();
  expect(report).toContain(`Data folder   ${shell.dataDir}`);
  expect(report).toContain(`Logs folder   ${join(shell.dataDir, 'logs')}`);
  expect(report).toContain('Shell         browser');
  expect(report).toMatch(/Node {10}\d+\.\d+\.\d+/);
  expect(report).toMatch(/Browser {7}.*Chrome\//);
  expect(report).toContain('Keychain      available (API key set, HMAC key set)');
  expect(report).toContain(`Project       ${platform.projectId}`);
  expect(report).not.toContain(API_KEY);
  expect(report).not.toContain(HMAC_KEY);

  const copy = sheet.getByRole('button', { name: 'Copy diagnostics' });
  await expect(copy).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(sheet.getByRole('status')).toHaveText('Copied to the clipboard.');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(report);
  await page.keyboard.press('Escape');
  await expect(sheet).toBeHidden();

  // serve's own log file: there, JSON lines, and the keys saved above are not in it. Rotated
  // files (serve.log.1 …) count as its log too; the listing with sizes is in the message if the
  // line is missing (once, on a loaded CI machine, serve.log held only the sign-in line).
  const logsDir = join(shell.dataDir, 'logs');
  const names = (await readdir(logsDir)).filter((n) => n.startsWith('serve.log')).sort();
  const files = await Promise.all(names.map(async (n) => ({ n, text: await readFile(join(logsDir, n), 'utf8') })));
  const log = files.map((f) => f.text).join('');
  const lines = log.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { msg: string; shell: string });
  const listing = files.map((f) => `${f.n}: ${f.text.length} chars, starts ${f.text.slice(0, 300)}`).join('\n');
  expect(lines.some((l) => l.msg === 'core started' && l.shell === 'browser'), listing).toBe(true);
  expect(log).not.toContain(API_KEY);
  expect(log).not.toContain(HMAC_KEY);
});
