import { createServer } from 'node:net';
import type { Locator, Page } from '@playwright/test';
import { addFiles, connectPlatform, dropFiles, openView, screenshot, sensorFile, type FileSpec } from './app-page.js';
import { expect, test } from './fixtures.js';
import { select, setCategory } from './sample-views.js';

// Issue 22: the class balance shows what this data folder knows, online or not, with the
// platform's numbers beside it when it answers; a label or a count shows exactly those samples.

const balance = (page: Page): Locator => page.getByTestId('class-balance');
const cell = (page: Page, label: string, category: string): Locator => balance(page).locator(`tbody tr[data-label="${label}"] td[data-category=${category}]`);
const total = (page: Page, category: string): Locator => balance(page).getByTestId('balance-totals').locator(`td[data-category=${category}]`);
const names = async (page: Page): Promise<string[]> =>
  (await page.getByTestId('sample-table').locator('tbody tr td.name').allTextContents()).map((s) => s.trim()).sort();

/** Uploads straight to the ingestion service, as another computer (or the platform's own uploader) would. */
async function uploadElsewhere(url: string, files: FileSpec[], category = 'training'): Promise<void> {
  const form = new FormData();
  for (const f of files) form.append('data', new Blob([new Uint8Array(f.buffer)], { type: f.mimeType }), f.name);
  const res = await fetch(`${url}/api/${category}/files`, { method: 'POST', headers: { 'x-api-key': 'ei_test_key' }, body: form });
  expect(res.status, await res.text()).toBe(200);
}

/** A port nothing listens on: the platform "cannot be reached" there. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise((r) => srv.close(r));
  return port;
}

test('offline, the class balance still counts every uploaded sample per label and category; totals add up', async ({ page, shell, platform }, testInfo) => {
  await page.goto(shell.url);
  await connectPlatform(page, platform, 'ei_test_key');
  await openView(page, 'Samples');
  await addFiles(page, [sensorFile('idle.01.cbor', 1), sensorFile('idle.02.cbor', 10), sensorFile('idle.03.cbor', 20), sensorFile('wave.01.cbor', 30), sensorFile('wave.02.cbor', 40)]);
  const table = page.getByTestId('sample-table');
  await expect(table.locator('tbody tr[data-state=uploaded]')).toHaveCount(5, { timeout: 20_000 });
  await setCategory(page, ['idle.03.cbor'], 'testing');
  await expect(page.getByRole('status').filter({ hasText: '1 sample set to testing (1 moved on the platform).' })).toBeVisible();
  // One more kept here, not queued.
  await page.getByTestId('import').getByLabel('Queue for upload now').uncheck();
  await dropFiles(page, [{ name: 'knock.01.cbor', buffer: sensorFile('x', 50).buffer }]);
  await expect(table.locator('tbody tr')).toHaveCount(6);
  // Online first: the platform's count stands beside the uploaded one.
  await expect(cell(page, 'idle', 'training').getByTestId('platform-count')).toHaveText('2', { timeout: 15_000 });

  // The platform goes away (the management API now points at a closed port), and the page reloads.
  await openView(page, 'Settings');
  const form = page.getByTestId('settings');
  await form.getByLabel('Management API URL').fill(`http://127.0.0.1:${await closedPort()}/v1`);
  await form.getByRole('button', { name: 'Save settings' }).click();
  await expect(form.getByRole('status')).toHaveText('Saved.');
  await page.reload();
  await openView(page, 'Samples');

  const panel = balance(page);
  await expect(panel.getByTestId('platform-error')).toHaveCount(1, { timeout: 15_000 });
  await expect(panel.getByTestId('platform-error')).toContainText(/^Platform counts unavailable: \S/);
  // Said once: not repeated in the sentence above the table.
  const error = (await panel.getByTestId('platform-error').textContent())!.replace('Platform counts unavailable: ', '').replace(/\.$/, '');
  await expect(panel.getByTestId('balance-summary')).toHaveText(/^6 samples in this data folder: 5 uploaded, 0 queued, 1 local\./);
  await expect(panel.getByTestId('balance-summary')).not.toContainText(error);

  // Every uploaded sample is still counted where it is; nothing reads "—", no platform number is made up.
  await expect(cell(page, 'idle', 'training').getByTestId('uploaded-count')).toHaveText('2');
  await expect(cell(page, 'idle', 'testing').getByTestId('uploaded-count')).toHaveText('1');
  await expect(cell(page, 'wave', 'training').getByTestId('uploaded-count')).toHaveText('2');
  await expect(cell(page, 'wave', 'testing').getByTestId('here-count')).toHaveText('0');
  await expect(cell(page, 'knock', 'training').getByTestId('local-count')).toHaveText('1');
  await expect(cell(page, 'knock', 'training').getByTestId('uploaded-count')).toHaveCount(0);
  await expect(panel.getByTestId('platform-count')).toHaveCount(0);
  await expect(panel.locator('table')).not.toContainText('—');
  await expect(panel.locator('tbody tr[data-label=idle]').getByTestId('label-total')).toHaveText('3');

  // Totals: per category over the labels, and all of it the number of samples in the table.
  await expect(total(page, 'training').getByTestId('here-count')).toHaveText('5');
  await expect(total(page, 'training').getByTestId('uploaded-count')).toHaveText('4');
  await expect(total(page, 'testing').getByTestId('here-count')).toHaveText('1');
  await expect(panel.getByTestId('all-total')).toHaveText('6');
  const categoryTotals = (await panel.getByTestId('balance-totals').getByTestId('here-count').allTextContents()).map(Number);
  expect(categoryTotals.reduce((a, b) => a + b, 0)).toBe(6);
  const labelTotals = (await panel.locator('tbody').getByTestId('label-total').allTextContents()).map(Number);
  expect(labelTotals.reduce((a, b) => a + b, 0)).toBe(6);
  await expect(page.getByTestId('sample-table').locator('tbody tr')).toHaveCount(6);
  await screenshot(page, testInfo, 'class-balance-offline');
});

test('online, the platform’s own count stands beside each row, with what was added there said in words', async ({ page, shell, platform }, testInfo) => {
  await page.goto(shell.url);
  await connectPlatform(page, platform, 'ei_test_key');
  await openView(page, 'Samples');
  await addFiles(page, [sensorFile('idle.01.cbor', 1), sensorFile('idle.02.cbor', 10)]);
  await expect(page.getByTestId('sample-table').locator('tbody tr[data-state=uploaded]')).toHaveCount(2, { timeout: 20_000 });
  const panel = balance(page);
  await expect(cell(page, 'idle', 'training').getByTestId('platform-count')).toHaveText('2', { timeout: 15_000 });
  await expect(cell(page, 'idle', 'training').getByTestId('difference-mark')).toHaveCount(0);
  await expect(panel.getByTestId('balance-differences')).toHaveCount(0);
  await panel.getByLabel('Target for idle').fill('10');
  await panel.getByLabel('Target for idle').press('Enter');
  await expect(panel.locator('tr[data-label=idle] [data-testid=target-progress]')).toHaveText('2/10');

  // Another computer uploads 3 more idle and a tap; this folder never saw them.
  await uploadElsewhere(platform.url, [sensorFile('idle.90.cbor', 90), sensorFile('idle.91.cbor', 91), sensorFile('idle.92.cbor', 92), sensorFile('tap.90.cbor', 93)]);
  await panel.getByRole('button', { name: 'Refresh' }).click();

  const idle = cell(page, 'idle', 'training');
  await expect(idle.getByTestId('platform-count')).toHaveText('5', { timeout: 15_000 });
  await expect(idle.getByTestId('uploaded-count')).toHaveText('2');
  await expect(idle.getByTestId('here-count')).toHaveText('2');
  await expect(idle.getByTestId('difference-mark')).toHaveText('+3');
  await expect(idle.getByRole('button')).toHaveAccessibleDescription(/The platform has 5: 3 more on the platform than uploaded from here/);
  const differences = panel.getByTestId('balance-differences');
  await expect(differences.locator('li[data-label=idle][data-category=training]')).toContainText('3 more on the platform than uploaded from here');
  await expect(differences.locator('li[data-label=tap][data-category=training]')).toContainText('1 more on the platform than uploaded from here');
  await expect(differences.locator('li')).toHaveCount(2);
  // The tap row: nothing here, 1 on the platform.
  await expect(cell(page, 'tap', 'training').getByTestId('here-count')).toHaveText('0');
  await expect(cell(page, 'tap', 'training').getByTestId('platform-count')).toHaveText('1');
  await expect(total(page, 'training').getByTestId('platform-count')).toHaveText('6');
  await expect(panel.getByTestId('balance-summary')).toContainText('The platform has 6: 4 more on the platform than uploaded from here');
  await expect(panel.getByTestId('platform-error')).toHaveCount(0);
  // The target counts the 2 here and the 3 the platform has beyond them.
  await expect(panel.locator('tr[data-label=idle] [data-testid=target-progress]')).toHaveText('5/10');
  await screenshot(page, testInfo, 'class-balance-difference');
});

test('a label in the class balance shows exactly its samples; a count shows that label in that category', async ({ page, shell }) => {
  await page.goto(shell.url);
  await openView(page, 'Samples');
  await page.getByTestId('import').getByLabel('Queue for upload now').uncheck();
  await dropFiles(page, ['idle.1', 'idle.2', 'idle.3', 'wave.1', 'wave.2', 'idler.1', 'misc.1'].map((n, i) => ({ name: `${n}.cbor`, buffer: sensorFile('x', i * 10).buffer })));
  const rows = page.getByTestId('sample-table').locator('tbody tr');
  await expect(rows).toHaveCount(7);
  await setCategory(page, ['idle.3.cbor', 'wave.2.cbor'], 'testing');
  await expect(cell(page, 'idle', 'testing').getByTestId('here-count')).toHaveText('1', { timeout: 10_000 });
  await select(page, ['misc.1.cbor']);
  await page.getByTestId('bulk-actions').getByRole('button', { name: 'Make unlabeled' }).click();
  await expect(balance(page).locator('tbody tr[data-label=""]')).toHaveCount(1, { timeout: 10_000 });

  const panel = balance(page);
  await panel.getByRole('button', { name: 'Show the 3 idle samples (every category)' }).click();
  await expect.poll(() => names(page)).toEqual(['idle.1.cbor', 'idle.2.cbor', 'idle.3.cbor']);

  await panel.getByRole('button', { name: 'Show the 1 wave sample in testing' }).click();
  await expect.poll(() => names(page)).toEqual(['wave.2.cbor']);

  // By keyboard: a count is a button like any other.
  await panel.getByRole('button', { name: 'Show the 2 idle samples in training' }).focus();
  await page.keyboard.press('Enter');
  await expect.poll(() => names(page)).toEqual(['idle.1.cbor', 'idle.2.cbor']);

  await panel.getByRole('button', { name: 'Show the 1 unlabeled sample (every category)' }).click();
  await expect.poll(() => names(page)).toEqual(['misc.1.cbor']);

  // A category's total: every label in it.
  await panel.getByRole('button', { name: 'Show the 2 samples in testing (every label)' }).click();
  await expect.poll(() => names(page)).toEqual(['idle.3.cbor', 'wave.2.cbor']);

  // An empty cell shows nothing to click.
  await expect(cell(page, 'idler', 'testing').getByRole('button')).toHaveCount(0);
});

test('at 1280×800 the class balance of 10 labels in four categories, with targets, fits its panel', async ({ page, shell, platform }, testInfo) => {
  test.setTimeout(120_000);
  platform.setFaults({ validationEnabled: true });
  await page.goto(shell.url);
  await connectPlatform(page, platform, 'ei_test_key');
  await openView(page, 'Samples');
  const labels = ['idle', 'wave', 'knock', 'door-knock-left-hand', 'shake', 'tap', 'swipe_up', 'swipe_down', 'background-noise', 'circle'];
  await addFiles(page, labels.flatMap((l, i) => [0, 1, 2].map((k) => sensorFile(`${l}.${k}.cbor`, i * 100 + k * 7))));
  await expect(page.getByTestId('sample-table').locator('tbody tr[data-state=uploaded]')).toHaveCount(30, { timeout: 30_000 });
  await setCategory(page, labels.map((l) => `${l}.1.cbor`), 'testing');
  await expect(page.getByRole('status').filter({ hasText: /10 samples set to testing/ })).toBeVisible({ timeout: 15_000 });
  await setCategory(page, labels.slice(0, 5).map((l) => `${l}.2.cbor`), 'validation');
  await expect(page.getByRole('status').filter({ hasText: /5 samples set to validation/ })).toBeVisible({ timeout: 15_000 });
  await setCategory(page, labels.slice(5).map((l) => `${l}.2.cbor`), 'post-processing');
  await expect(page.getByRole('status').filter({ hasText: /5 samples set to post-processing/ })).toBeVisible({ timeout: 15_000 });
  // A difference to show: 40 more of one label uploaded elsewhere.
  await uploadElsewhere(platform.url, Array.from({ length: 40 }, (_, k) => sensorFile(`background-noise.e${k}.cbor`, 5000 + k)));
  await page.getByTestId('import').getByLabel('Queue for upload now').uncheck();
  await dropFiles(page, [{ name: 'door-knock-left-hand.9.cbor', buffer: sensorFile('x', 9999).buffer }]);

  const panel = balance(page);
  for (const [i, l] of labels.entries()) {
    await panel.getByLabel(`Target for ${l}`, { exact: true }).fill(String(100 + i * 1000));
    await panel.getByLabel(`Target for ${l}`, { exact: true }).press('Enter');
    await expect(panel.locator(`tr[data-label="${l}"] [data-testid=target-progress]`)).toBeVisible();
  }
  await panel.getByRole('button', { name: 'Refresh' }).click();
  await expect(cell(page, 'background-noise', 'training').getByTestId('platform-count')).toHaveText('41', { timeout: 15_000 });
  // Four categories: the headers shorten, their full names in the tooltip.
  await expect(panel.locator('thead th abbr')).toHaveText(['Train', 'Test', 'Valid.', 'Post-proc.']);
  expect(await panel.locator('thead th abbr').evaluateAll((es) => es.map((e) => e.getAttribute('title')))).toEqual(['training', 'testing', 'validation', 'post-processing']);
  await expect(panel.locator('tbody tr')).toHaveCount(10);
  await expect(panel.getByTestId('target-progress')).toHaveCount(10);
  await screenshot(page, testInfo, 'class-balance-10-labels');

  // Nothing sticks out of the panel, and nothing overflows its own box (a clipped cell would).
  const overflow = await panel.evaluate((el) => {
    const box = el.getBoundingClientRect();
    const out: string[] = [];
    if (el.scrollWidth > el.clientWidth) out.push(`panel scrollWidth ${el.scrollWidth} > clientWidth ${el.clientWidth}`);
    const side = el.parentElement!;
    if (side.scrollWidth > side.clientWidth) out.push(`side column scrollWidth ${side.scrollWidth} > clientWidth ${side.clientWidth}`);
    for (const e of el.querySelectorAll('*')) {
      const r = e.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      const what = `${e.tagName.toLowerCase()}${e.getAttribute('data-testid') ? `[${e.getAttribute('data-testid')}]` : ''} "${(e.textContent ?? '').trim().slice(0, 30)}"`;
      if (r.right > box.right + 0.5 || r.left < box.left - 0.5) out.push(`${what} spans ${r.left}–${r.right}, panel ${box.left}–${box.right}`);
      if ((e.tagName === 'TD' || e.tagName === 'TH' || e.tagName === 'TABLE') && e.scrollWidth > e.clientWidth + 1) out.push(`${what} scrollWidth ${e.scrollWidth} > clientWidth ${e.clientWidth}`);
    }
    return out;
  });
  expect(overflow).toEqual([]);
  // The rightmost column's cells end inside the panel, and the table is the panel's width at most.
  const panelBox = (await panel.boundingBox())!;
  for (const c of await panel.locator('td[data-category=post-processing]').all()) {
    const b = (await c.boundingBox())!;
    expect(b.x + b.width).toBeLessThanOrEqual(panelBox.x + panelBox.width);
  }
  // Every label's target field is on screen width-wise (the old Target column was cut off).
  for (const l of labels) {
    const b = (await panel.getByLabel(`Target for ${l}`, { exact: true }).boundingBox())!;
    expect(b.x + b.width).toBeLessThanOrEqual(panelBox.x + panelBox.width);
    expect(b.width).toBeGreaterThan(20);
  }
  // The whole panel, for a person to look at (the side column scrolls at 800 px high).
  await page.setViewportSize({ width: 1280, height: 2400 });
  const path = testInfo.outputPath('class-balance-panel.png');
  await panel.screenshot({ path });
  await testInfo.attach('class-balance-panel', { path, contentType: 'image/png' });
});

test('a target whose label or number the platform settings cannot hold is said in words; a good one is set', async ({ page, shell }) => {
  // It was "Could not save the target: Invalid arguments for settings.set (labelTargets.xxxx…: Invalid key in record)".
  await page.goto(shell.url);
  await openView(page, 'Samples');
  await page.getByLabel('Queue for upload now').uncheck();
  await addFiles(page, [sensorFile('idle.01.cbor', 1)]);
  const form = balance(page).locator('form.add-target');
  await form.getByPlaceholder('label').fill('x'.repeat(200));
  await form.getByPlaceholder('e.g. 50').fill('5');
  await form.getByRole('button', { name: 'Set target' }).click();
  await expect(balance(page).getByRole('alert')).toHaveText('The label is 200 characters long; a label is at most 128. Shorten it.');
  await form.getByPlaceholder('label').fill('walk');
  await form.getByPlaceholder('e.g. 50').fill('2000000');
  await form.getByRole('button', { name: 'Set target' }).click();
  await expect(balance(page).getByRole('alert')).toHaveText('Target for "walk" must be a whole number from 1 to 1,000,000, or empty for none.');
  await form.getByPlaceholder('e.g. 50').fill('10');
  await form.getByRole('button', { name: 'Set target' }).click();
  await expect(balance(page).getByRole('alert')).toHaveCount(0);
  await expect(balance(page).locator('tbody tr[data-label="walk"]')).toContainText('0/10');
});
