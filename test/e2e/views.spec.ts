import { openView, saveKey, screenshot } from './app-page.js';
import { expect, test } from './fixtures.js';

test('the views switch with Alt+1/2/3 and with arrow keys on the tab bar', async ({ page, shell }) => {
  await page.goto(shell.url);
  const tab = (name: string) => page.getByRole('tab', { name: new RegExp(`^${name}`) });
  await expect(tab('Live')).toHaveAttribute('aria-selected', 'true');
  await expect(tab('Samples')).toHaveAttribute('title', 'Samples (Alt+2)');

  await page.keyboard.press('Alt+2');
  await expect(tab('Samples')).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('samples-view')).toBeVisible();
  await page.keyboard.press('Alt+3');
  await expect(page.getByTestId('settings')).toBeVisible();

  await tab('Settings').focus();
  await page.keyboard.press('ArrowLeft');
  await expect(tab('Samples')).toHaveAttribute('aria-selected', 'true');
  await expect(tab('Samples')).toBeFocused();
  await page.keyboard.press('Home');
  await expect(tab('Live')).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('device-list')).toBeVisible();

  // The tab is part of the address: a reload stays on it.
  await page.keyboard.press('End');
  await page.reload();
  await expect(tab('Settings')).toHaveAttribute('aria-selected', 'true');
});

test('keys are entered, shown only as set / not set, explained when malformed, and cleared', async ({ page, shell, platform }, testInfo) => {
  await page.goto(shell.url);
  await openView(page, 'Settings');
  const form = page.getByTestId('settings');
  await form.getByLabel('Project ID').fill(String(platform.projectId));
  await form.getByRole('button', { name: 'Save settings' }).click();
  await expect(page.getByTestId('keys')).toContainText(`For project ${platform.projectId}`);
  await expect(page.getByTestId('hmac-key-status')).toHaveText('not set');
  await expect(page.getByTestId('keychain-problem')).toHaveCount(0);

  const row = page.getByTestId('key-hmac-key');
  await row.locator('input[type=password]').fill('two words');
  await row.getByRole('button', { name: 'Save' }).click();
  await expect(row.getByRole('alert')).toContainText('a space at character 4');
  await expect(page.getByTestId('hmac-key-status')).toHaveText('not set');

  await saveKey(page, 'hmac-key', 'abcdef0123456789');
  await screenshot(page, testInfo, 'settings-keys');
  await row.getByRole('button', { name: 'Clear' }).click();
  await expect(page.getByTestId('hmac-key-status')).toHaveText('not set');
  await expect(row.getByRole('button', { name: 'Clear' })).toBeDisabled();
});
