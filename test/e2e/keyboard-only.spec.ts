import { LINE_BOARD } from '../support/boards/board-on-pty.js';
import { expect, test } from './fixtures.js';
import { expectFocusShown, press, tabTo, typeInto } from './keyboard.js';
import { tableRow } from './sample-views.js';
import { addModel } from './seed.js';

// Issue 28, item 3: the main workflow without a pointer. Connect the project, choose a board, set
// label and category, record, open the take, crop it, upload the crop and find it in the Samples
// view: Tab, arrows, Enter, Space, Esc and the app's shortcuts only, the focus checked at every
// key (keyboard.ts): always shown, never lost, never behind the sample view.

const exactly = (name: string) => new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);

test('keyboard only: from a board chosen in the device list to its cropped take found uploaded in the Samples view', async ({ page, shell, platform, board }) => {
  test.slow(); // a hundred key presses, each followed by a look at the focus
  const { pty } = await board(LINE_BOARD, ['--rate', '100', '--axes', '3']);
  await page.goto(shell.url);
  await expect(page.getByTestId('connection')).toHaveText('connected');

  // Settings (Alt+3): the platform's addresses and project, saved with Enter; the API key, saved with Enter.
  await press(page, 'Alt+3');
  const form = page.getByTestId('settings');
  await expect(page.getByRole('tab', { name: 'Settings' })).toBeFocused(); // the shortcut takes the keyboard along
  await typeInto(page, form.getByLabel('Ingestion URL'), platform.url);
  await typeInto(page, form.getByLabel('Management API URL'), platform.managementUrl);
  await typeInto(page, form.getByLabel('Project ID'), String(platform.projectId));
  await press(page, 'Enter');
  await expect(form.getByRole('status')).toHaveText('Saved.');
  const key = page.getByTestId('key-api-key').locator('input[type=password]');
  await tabTo(page, key);
  await page.keyboard.type('ei_test_key');
  await press(page, 'Enter');
  await expect(page.getByTestId('api-key-status')).toHaveText('set');

  // Live (Alt+1): the board opened by its path, then chosen again in the device list with arrows.
  await press(page, 'Alt+1');
  await expect(page.getByRole('tab', { name: 'Live' })).toBeFocused();
  await typeInto(page, page.getByLabel('Open a port by path'), pty.hostPath);
  await press(page, 'Enter');
  const boardOption = page.locator(`[data-source-id="serial:${pty.hostPath}"]`);
  await expect(boardOption).toHaveAttribute('aria-selected', 'true');
  const list = page.getByTestId('device-list');
  await tabTo(page, list, { back: true });
  await press(page, 'Home');
  await expect(page.locator('[data-source-id="simulated:imu"]')).toHaveAttribute('aria-selected', 'true');
  for (let i = 0; i < 5 && (await boardOption.getAttribute('aria-selected')) !== 'true'; i++) await press(page, 'ArrowDown');
  await expect(boardOption).toHaveAttribute('aria-selected', 'true');
  await expect.poll(async () => Number(await page.getByTestId('rows-received').textContent()), { timeout: 15_000 }).toBeGreaterThan(50);

  // Label, category (type-ahead in the closed list), length; then Record, pressed with Enter.
  const bar = page.getByTestId('record-bar');
  await typeInto(page, bar.getByLabel('Label', { exact: true }), 'knock');
  const category = bar.getByLabel('Category');
  await tabTo(page, category);
  await page.keyboard.type('testing');
  await expect(category).toHaveValue('testing');
  await typeInto(page, bar.getByLabel('Length (s)'), '2');
  const upload = bar.getByLabel('Upload when saved');
  await tabTo(page, upload);
  if (await upload.isChecked()) await press(page, 'Space'); // kept here: the crop is what goes up
  await expect(upload).not.toBeChecked();
  await tabTo(page, bar.getByTestId('record-button'));
  await press(page, 'Enter');
  await expect(page.getByTestId('recording-saved')).toContainText('Saved 1 sample', { timeout: 15_000 });
  await expectFocusShown(page); // the button that started it still has the keyboard

  // Samples (Alt+2): Tab to the take's row, Enter opens it; Shift+→ selects, C crops, Esc twice closes.
  await press(page, 'Alt+2');
  await expect(tableRow(page, /^knock\./)).toHaveCount(1);
  const takeName = (await tableRow(page, /^knock\./).locator('td.name').textContent())!.trim();
  const take = tableRow(page, exactly(takeName));
  await expect(take.locator('td').nth(3)).toHaveText('testing');
  await tabTo(page, take.getByRole('checkbox'));
  await press(page, 'Enter');
  const view = page.getByTestId('sample-view');
  await expect(view.getByTestId('review-plot')).toHaveAttribute('data-painted', 'true');
  for (let i = 0; i < 10; i++) await press(page, 'Shift+ArrowRight');
  await expect(view.getByTestId('view-range')).toContainText('selected');
  await press(page, 'c');
  await expect(view.getByTestId('review-status')).toContainText('Cropped to a new sample');
  const cropName = /"(.+?)"/.exec((await view.getByTestId('review-status').textContent()) ?? '')![1]!;
  await press(page, 'Escape');
  await press(page, 'Escape');
  await expect(view).toBeHidden();
  await expect(take.getByRole('checkbox')).toBeFocused(); // back on the row it was opened from

  // The crop (newest, so the row above): ticked with Space, queued from the bulk bar with Enter.
  const crop = tableRow(page, exactly(cropName));
  await expect(crop).toHaveAttribute('data-state', 'local');
  await tabTo(page, crop.getByRole('checkbox'), { back: true });
  await press(page, 'Space');
  await expect(crop.getByRole('checkbox')).toBeChecked();
  await tabTo(page, page.getByTestId('bulk-actions').getByRole('button', { name: 'Queue for upload' }));
  await press(page, 'Enter');
  await expect.poll(() => platform.samples.map((s) => s.originalName), { timeout: 20_000 }).toContain(cropName);

  // Found again by typing its name into the search.
  await typeInto(page, page.getByRole('searchbox'), cropName, { back: true });
  await expect(page.getByTestId('matching-count')).toHaveText('1 matching');
  await expect(crop).toHaveAttribute('data-state', 'uploaded', { timeout: 15_000 });
  await expect(crop.locator('td.label')).toHaveText('knock');
  await expect(crop.locator('td').nth(3)).toHaveText('testing');
  await expectFocusShown(page);
});

test('keyboard only: hiding the checklist and answering "Remove…" of a model keep the focus on the page, and Esc answers Cancel', async ({ page, shell }) => {
  await addModel(shell.dataDir, 'gestures');
  await page.goto(shell.url);
  const checklist = page.getByTestId('setup-checklist');
  await expect(checklist).toBeVisible();
  // Hide: the list goes, and the keyboard lands on the ? button that brings it back.
  await tabTo(page, checklist.getByRole('button', { name: 'Hide' }));
  await press(page, 'Enter');
  await expect(checklist).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Keyboard shortcuts, manual, connection checklist and diagnostics' })).toBeFocused();

  await press(page, 'Alt+3');
  const model = page.locator('[data-testid=model][data-name=gestures]');
  const ask = model.getByRole('button', { name: 'Remove model gestures' });
  await tabTo(page, ask);
  await press(page, 'Enter');
  await expect(model.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await press(page, 'Escape');
  await expect(ask).toBeFocused();
  await press(page, 'Enter');
  await press(page, 'Enter'); // Cancel
  await expect(ask).toBeFocused();
  await expect(model).toHaveCount(1);

  await press(page, 'Enter');
  await press(page, 'Shift+Tab'); // from Cancel to Remove
  await expect(model.getByRole('button', { name: 'Remove', exact: true })).toBeFocused();
  await press(page, 'Enter');
  await expect(model).toHaveCount(0);
  await expect(page.getByTestId('models').getByRole('button', { name: 'Add model…' })).toBeFocused();
});

test('keyboard only: Space on a button or the device list reached with Tab presses it, and records nothing', async ({ page, shell }) => {
  test.slow(); // some forty key presses, each followed by a look at the focus
  await page.goto(shell.url);
  await expect.poll(async () => Number(await page.getByTestId('rows-received').textContent()), { timeout: 10_000 }).toBeGreaterThan(50);
  const bar = page.getByTestId('record-bar');
  await typeInto(page, bar.getByLabel('Length (s)'), '1');

  const watch = page.getByRole('button', { name: 'Keep watching' });
  await tabTo(page, watch, { back: true });
  await press(page, 'Space');
  await expect(page.getByRole('button', { name: 'Watching alongside' })).toBeFocused();
  await tabTo(page, bar.getByRole('button', { name: '+ Add key' }));
  await press(page, 'Space');
  await expect(bar.getByLabel('Metadata key 1')).toBeVisible();
  await tabTo(page, page.getByTestId('device-list'), { back: true });
  await press(page, 'Space');

  // Nothing was recorded by any of those presses; Space on the Record button itself records.
  await page.waitForTimeout(1500);
  await expect(page.getByTestId('recording-indicator')).toHaveCount(0);
  await expect(page.getByTestId('recording-saved')).toHaveCount(0);
  await tabTo(page, bar.getByTestId('record-button'));
  await press(page, 'Space');
  await expect(page.getByTestId('recording-saved')).toContainText('Saved 1 sample', { timeout: 10_000 });
});
