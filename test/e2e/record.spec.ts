import { expect, test } from './fixtures.js';

test('Space records the live source for the set length; the sample shows up, labelled and queued', async ({ page, shell }, testInfo) => {
  await page.goto(shell.url);
  await expect.poll(async () => Number(await page.getByTestId('rows-received').textContent()), { timeout: 10_000 }).toBeGreaterThan(50);
  const bar = page.getByTestId('record-bar');
  await bar.getByLabel('Label').fill('wave');
  await bar.getByLabel('Category').selectOption('testing');
  await bar.getByLabel('Length (s)').fill('1.5');
  await page.locator('body').click({ position: { x: 5, y: 300 } }); // focus away from the inputs
  await page.keyboard.press('Space');
  await expect(page.getByTestId('recording-indicator')).toContainText('REC');
  await page.screenshot({ path: testInfo.outputPath('recording.png') });
  await testInfo.attach('recording', { path: testInfo.outputPath('recording.png'), contentType: 'image/png' });
  await expect(page.getByTestId('recording-saved')).toContainText('Saved 1 sample', { timeout: 10_000 });

  await page.getByRole('tab', { name: /Samples/ }).click();
  const row = page.getByRole('row', { name: /wave\.[0-9a-f]{8}\.cbor/ });
  await expect(row).toContainText('testing');
  await expect(row).toContainText(/queued|local/);
});

test('a label longer than 128 characters is refused at once, in words: its length and the limit, before any countdown', async ({ page, shell }) => {
  await page.goto(shell.url);
  await expect.poll(async () => Number(await page.getByTestId('rows-received').textContent()), { timeout: 10_000 }).toBeGreaterThan(50);
  const bar = page.getByTestId('record-bar');
  await bar.getByLabel('Label').fill('x'.repeat(200));
  await bar.getByLabel('Length (s)').fill('1');
  await bar.getByLabel('Countdown').selectOption('3');
  await bar.getByTestId('record-button').click();
  const notices = page.getByTestId('notices');
  await expect(notices).toContainText('Could not start recording: The label is 200 characters long; a label is at most 128. Shorten it.');
  await expect(notices).not.toContainText('Invalid arguments');
  await expect(page.getByTestId('countdown')).toHaveCount(0);
  await expect(bar.getByTestId('record-button')).toHaveText('Record');

  // Shortened to the limit, the same take records.
  await bar.getByLabel('Label').fill('x'.repeat(128));
  await bar.getByLabel('Countdown').selectOption('0');
  await bar.getByTestId('record-button').click();
  await expect(page.getByTestId('recording-saved')).toContainText('Saved 1 sample', { timeout: 10_000 });
});

test('the first steps as written: type a label and a length, then Enter in the field records; Space there types into it', async ({ page, shell }) => {
  await page.goto(shell.url);
  await expect.poll(async () => Number(await page.getByTestId('rows-received').textContent()), { timeout: 10_000 }).toBeGreaterThan(50);
  const bar = page.getByTestId('record-bar');
  await bar.getByLabel('Label').fill('wave');
  await bar.getByLabel('Length (s)').fill('1');
  // Focus is still in the Length field, where the person typed last.
  await expect(bar.getByLabel('Length (s)')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('recording-indicator')).toContainText('REC');
  await expect(page.getByTestId('recording-saved')).toContainText('Saved 1 sample', { timeout: 10_000 });
  // The shortcut sheet says so too.
  await page.locator('body').click({ position: { x: 5, y: 300 } });
  await page.keyboard.press('?');
  await expect(page.getByRole('dialog')).toContainText('Enter (in Label or Length)');
});

test('a take still recording when the page is reloaded (or opened in a second browser) shows there with its Stop', async ({ page, shell, context }) => {
  await page.goto(shell.url);
  await expect.poll(async () => Number(await page.getByTestId('rows-received').textContent()), { timeout: 10_000 }).toBeGreaterThan(50);
  const bar = page.getByTestId('record-bar');
  await bar.getByLabel('Label').fill('reloaded');
  await bar.getByLabel('Length (s)').fill(''); // until stopped
  await bar.getByTestId('record-button').click();
  await expect(page.getByTestId('recording-indicator')).toContainText('REC');

  // A second browser tab on the same serve sees the take running.
  const other = await context.newPage();
  await other.goto(shell.url);
  await expect(other.getByTestId('recording-indicator')).toContainText('REC');
  await expect(other.getByTestId('record-button')).toHaveText('Stop');
  await other.close();

  await page.reload();
  await expect(page.getByTestId('recording-indicator')).toContainText('REC');
  await expect(bar.getByTestId('record-button')).toHaveText('Stop');
  await bar.getByTestId('record-button').click();
  await expect(page.getByTestId('recording-saved')).toContainText('Saved 1 sample', { timeout: 10_000 });
  await expect(page.getByTestId('notices')).not.toContainText('already being recorded');
});
