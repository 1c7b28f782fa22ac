// Testing a model in the app (issue 44, items 2 and 3), in the browser shell: test models whose
// answers are known window by window (the CLI test's models "a" and "b", cli-model-test.test.ts,
// where each sample's prediction is worked out by hand), samples with known labels imported with
// `samples import`. From Settings → Models: the accuracy, the matrix's counts, the per-label
// figures and the unfit samples with their reasons; a matrix cell opens the Samples view on
// exactly its samples under a chip "actual idle · predicted wave", and a sample opened there shows
// the test's windows as bands. From the Samples view: the same test again reuses every kept
// result; two models show both matrices and what the second fixed and broke; Cancel stops a test.
import type { Locator, Page } from '@playwright/test';
import { PRESETS, rowsWithEnergies, type TestModelOptions } from '../support/models/test-model.mjs';
import { audit } from './a11y.js';
import { openView, screenshot } from './app-page.js';
import { expect, test } from './fixtures.js';
import { tableRow } from './sample-views.js';
import { addModel, importSamples } from './seed.js';

/** 62.5 Hz, windows of 2000 ms, 3 axes: idle below energy 2, wave from 2, shake from 6 (within 10 % of a level: confidence 0.55). */
const A: TestModelOptions = { ...PRESETS.gestureNew, labels: ['idle', 'wave', 'shake'], rule: { axis: 0, levels: [2, 6] } };
/** The same data read with other levels: idle below 3.5, wave from 3.5, shake from 7. */
const B: TestModelOptions = { ...A, rule: { axis: 0, levels: [3.5, 7] } };
const rows = (energies: number[], axes = 3) => rowsWithEnergies(A, energies, axes);

/** Model a at a window every 2000 ms (one window per energy) — what it says of each, worked out in cli-model-test.test.ts. */
const SAMPLES = [
  { name: 's1', label: 'idle', rows: rows([0.5, 0.5, 3]) }, // idle idle wave → idle ✓ (b: idle ✓)
  { name: 's2', label: 'idle', rows: rows([3, 3]) }, // wave wave → wave ✗ (b: idle ✓: fixed)
  { name: 's3', label: 'wave', rows: rows([3, 4, 0.5]) }, // → wave ✓ (b: idle ✗: broken)
  { name: 's4', label: 'wave', rows: rows([3, 0.5]) }, // a tie → uncertain
  { name: 's5', label: 'wave', rows: rows([2.05, 2.05, 3]) }, // uncertain most → uncertain
  { name: 's6', label: 'shake', rows: rows([8, 8]) }, // → shake ✓
  { name: 's7', label: 'shake', rows: rows([4]) }, // → wave ✗
  { name: 'u1', label: 'jump', rows: rows([3]) }, // unfit: not one of the model's labels
  { name: 'u3', label: 'wave', rows: rows([3, 3], 2) }, // unfit: 2 axes
];

/** The matrix's counts, row by row: [actual, ...counts in the columns' order]. */
async function matrixCounts(grid: Locator): Promise<string[][]> {
  return grid.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.querySelector('th')!.textContent!.trim(), ...[...tr.querySelectorAll('td[data-count]')].map((td) => td.getAttribute('data-count')!)]));
}

async function shownNames(page: Page): Promise<string[]> {
  return (await page.getByTestId('sample-table').locator('tbody td.name').allTextContents()).map((t) => t.trim()).sort();
}

test('a model tested from Settings → Models and from the Samples view: figures, matrix, cells as samples, reuse, two models, Cancel', async ({ page, shell }, testInfo) => {
  test.slow();
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await addModel(shell.dataDir, 'a', A);
  await addModel(shell.dataDir, 'b', B);
  // Slow enough to watch and cancel: 100 ms a window, a window every 50 ms.
  await addModel(shell.dataDir, 'slow', { ...A, faults: { slowMs: 100 } });
  await importSamples(shell.dataDir, SAMPLES);
  await page.goto(shell.url);

  // ---- Settings → Models: "Test…" on model a.
  await openView(page, 'Settings');
  await page.getByRole('button', { name: 'Test model a on the samples here' }).click();
  const panel = page.getByTestId('model-test');
  await expect(panel.getByTestId('model-test-model-pick')).toHaveValue('a');
  await expect(panel.getByTestId('model-test-model-pick')).toBeFocused();
  await panel.getByTestId('model-test-category').selectOption('all'); // samples import files them as training
  await panel.getByLabel('Stride (ms)').fill('2000');
  await panel.getByTestId('model-test-run').click();
  const result = panel.getByTestId('model-test-result');
  await expect(result.getByTestId('model-test-headline')).toHaveText('Accuracy 42.9 %: 3 of 7 samples counted right; 2 uncertain; 2 unfit.', { timeout: 20_000 });
  await expect(result.getByTestId('model-test-reuse')).toHaveText('Classified 7 samples (windows of 2000 ms every 2000 ms); 0 kept results of the same build, stride, threshold and sample content reused.');
  const grid = result.getByTestId('confusion-grid');
  await expect(grid.locator('thead th')).toHaveText(['actual ↓ predicted →', 'idle', 'wave', 'shake', 'uncertain', 'samples']);
  expect(await matrixCounts(grid)).toEqual([['idle', '1', '1', '0', '0'], ['wave', '0', '1', '0', '2'], ['shake', '0', '1', '1', '0']]);
  // Right and wrong in words, not only in colour.
  await expect(grid.getByRole('button', { name: 'actual idle, predicted wave: 1 sample (50.0 % of idle), wrong: show these samples' })).toBeVisible();
  await expect(grid.getByRole('button', { name: 'actual idle, predicted idle: 1 sample (50.0 % of idle), right: show these samples' })).toContainText('✓');
  const perLabel = result.getByTestId('model-test-per-label').locator('tbody tr');
  await expect(perLabel).toHaveText([/^idle\s*1\.0000\s*0\.5000\s*0\.6667\s*2$/, /^wave\s*0\.3333\s*0\.3333\s*0\.3333\s*3$/, /^shake\s*1\.0000\s*0\.5000\s*0\.6667\s*2$/]);
  // In the order they were added (the import goes label by label: the waves before the jump).
  await expect(result.getByTestId('model-test-unfit').locator('li')).toHaveText([
    'u3.json: 2 axes, where model "a" takes 3',
    'u1.json: label "jump" is not one of model "a"\'s labels (idle, wave, shake)',
  ]);
  await grid.scrollIntoViewIfNeeded();
  await screenshot(page, testInfo, 'model-test-settings');
  await audit(page, 'Settings → Models: a model test\'s result');

  // ---- A cell from the keyboard: the Samples view shows exactly its samples, under a chip named like the cell.
  await grid.getByRole('button', { name: /^actual idle, predicted wave/ }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('tab', { name: /^Samples/ })).toHaveAttribute('aria-selected', 'true');
  const chips = page.getByTestId('filter-chips');
  await expect(chips.getByRole('button', { name: 'Remove filter actual idle · predicted wave' })).toBeVisible();
  await expect.poll(() => shownNames(page)).toEqual(['s2.json']);
  // The matrix came along: another cell, the two uncertain waves.
  await page.getByTestId('model-test').getByRole('button', { name: /^actual wave, predicted uncertain: 2 samples/ }).click();
  await expect(chips.getByRole('button', { name: 'Remove filter actual wave · predicted uncertain' })).toBeVisible();
  await expect(chips.getByRole('button', { name: /actual idle/ })).toHaveCount(0);
  await expect.poll(() => shownNames(page)).toEqual(['s4.json', 's5.json']);

  // Opening one shows the test's windows as bands, as a classification on this computer by model a.
  await tableRow(page, /^s4\.json$/).dblclick();
  const view = page.getByTestId('sample-view');
  await expect(view.getByTestId('classify-source')).toHaveValue('a');
  const bands = view.getByTestId('classification-band');
  await expect(bands).toHaveCount(2);
  expect(await bands.evaluateAll((els) => els.map((e) => e.getAttribute('data-label')))).toEqual(['wave', 'idle']);
  await page.keyboard.press('Escape');
  await page.keyboard.press('Escape');
  await expect(view).toBeHidden();

  // The chip goes like any other; every sample is back.
  await chips.getByRole('button', { name: 'Remove filter actual wave · predicted uncertain' }).click();
  await expect.poll(() => shownNames(page)).toHaveLength(9);

  // ---- From the Samples view, on the 9 samples shown: the same test classifies nothing again.
  const here = page.getByTestId('model-test');
  await here.getByRole('button', { name: 'Close the model test' }).click();
  await page.getByTestId('samples-test-open').click();
  await here.getByLabel('Stride (ms)').fill('2000');
  await expect(here.getByTestId('model-test-run')).toHaveText('Test on 9 samples');
  await here.getByTestId('model-test-run').click();
  await expect(here.getByTestId('model-test-reuse')).toHaveText('Classified 0 samples (windows of 2000 ms every 2000 ms); 7 kept results of the same build, stride, threshold and sample content reused.', { timeout: 20_000 });
  await expect(here.getByTestId('model-test-result')).toContainText('Tested on the samples matching the search and filters: 9 samples, 7 counted');
  expect(await matrixCounts(here.getByTestId('confusion-grid'))).toEqual([['idle', '1', '1', '0', '0'], ['wave', '0', '1', '0', '2'], ['shake', '0', '1', '1', '0']]);

  // ---- Two models: both matrices, and the samples b fixed and broke.
  await here.getByTestId('model-test-second').selectOption('b');
  await here.getByTestId('model-test-run').click();
  const grids = here.getByTestId('confusion-grid');
  await expect(grids).toHaveCount(2, { timeout: 20_000 });
  expect(await matrixCounts(grids.nth(1))).toEqual([['idle', '2', '0', '0'], ['wave', '3', '0', '0'], ['shake', '0', '1', '1']]);
  await expect(here.getByTestId('model-test-model').nth(1).getByTestId('model-test-reuse')).toContainText('Classified 7 samples');
  await expect(here.getByTestId('model-test-model').nth(0).getByTestId('model-test-reuse')).toContainText('Classified 0 samples');
  await expect(here.getByTestId('model-test-fixed').locator('li')).toHaveText(['s2.json: idle; "a" said wave, "b" said idle']);
  await expect(here.getByTestId('model-test-broken').locator('li')).toHaveText(['s3.json: wave; "a" said wave, "b" said idle']);
  await grids.nth(1).scrollIntoViewIfNeeded();
  await screenshot(page, testInfo, 'model-test-two-models');
  await audit(page, 'Samples: two models\' test results beside the samples');
  // The shades under the counts keep their contrast in the dark theme too.
  await page.emulateMedia({ colorScheme: 'dark' });
  await audit(page, 'Samples: two models\' test results, dark theme');
  await page.emulateMedia({ colorScheme: 'light' });
  // A cell of the second matrix names its model in the chip.
  await grids.nth(1).getByRole('button', { name: /^actual wave, predicted idle: 3 samples/ }).click();
  await expect(page.getByTestId('filter-chips').getByRole('button', { name: 'Remove filter b: actual wave · predicted idle' })).toBeVisible();
  await expect.poll(() => shownNames(page)).toEqual(['s3.json', 's4.json', 's5.json']);
  await page.getByTestId('clear-filters').click();
  await expect.poll(() => shownNames(page)).toHaveLength(9);

  // ---- Cancel: the slow model, a window every 50 ms (81 windows of 100 ms a sample), compared
  // with a: the bar counts each sample once per model and says so.
  await here.getByTestId('model-test-second').selectOption('');
  await here.getByTestId('model-test-model-pick').selectOption('slow');
  await here.getByTestId('model-test-second').selectOption('a');
  await here.getByLabel('Stride (ms)').fill('50');
  await here.getByTestId('model-test-run').click();
  const bar = here.getByTestId('job-test');
  await expect(bar).toContainText(/Testing: [1-8] of 18 sample tests \(9 samples, each by 2 models\)/, { timeout: 20_000 });
  await expect(bar.getByRole('progressbar', { name: 'Testing progress' })).toBeVisible();
  await bar.getByRole('button', { name: 'Cancel' }).click();
  await expect(here.getByTestId('model-test-cancelled')).toHaveText(/^The test of model "slow" was stopped after [1-8] of 9 samples; the samples classified keep their results\.$/, { timeout: 20_000 });
  await expect(bar).toHaveCount(0);
  // The last finished result stays on screen.
  await expect(grids).toHaveCount(2);

  // ---- A cell survives a reload of the window: the address names it, the window keeps its ids.
  await grids.nth(1).getByRole('button', { name: /^actual wave, predicted idle: 3 samples/ }).click();
  const cellChip = page.getByTestId('filter-chips').getByRole('button', { name: 'Remove filter b: actual wave · predicted idle' });
  await expect(cellChip).toBeVisible();
  await expect(page).toHaveURL(/#samples\?cell=[0-9a-z]+/);
  await page.reload();
  await expect(cellChip).toBeVisible();
  await expect.poll(() => shownNames(page)).toEqual(['s3.json', 's4.json', 's5.json']);
  // Another window does not have its ids: the chip says so and shows no sample, not every one.
  const other = await page.context().newPage();
  await other.goto(page.url());
  await expect(other.getByTestId('filter-chips')).toContainText('a matrix cell of an earlier model test (its samples are not kept in this window: run the test again)');
  await expect(other.getByText('No samples match')).toBeVisible();
  expect(await shownNames(other)).toEqual([]);
  await other.close();
  expect(pageErrors).toEqual([]);
});

test('Settings → Models tests one label of a category, as `model test --label`', async ({ page, shell }) => {
  await addModel(shell.dataDir, 'a', A);
  await importSamples(shell.dataDir, SAMPLES);
  await page.goto(shell.url);
  await openView(page, 'Settings');
  await page.getByRole('button', { name: 'Test model a on the samples here' }).click();
  const panel = page.getByTestId('model-test');
  const pick = panel.getByTestId('model-test-label');
  await expect(pick.locator('option')).toHaveText(['every label', 'idle', 'wave', 'shake']); // model a's labels
  await panel.getByTestId('model-test-category').selectOption('all');
  await pick.selectOption('wave');
  await panel.getByLabel('Stride (ms)').fill('2000');
  await panel.getByTestId('model-test-run').click();
  // The waves only: s3 right, s4 and s5 uncertain; u3 (2 axes) unfit.
  await expect(panel.getByTestId('model-test-headline')).toHaveText('Accuracy 33.3 %: 1 of 3 samples counted right; 2 uncertain; 1 unfit.', { timeout: 20_000 });
  await expect(panel.getByTestId('model-test-result')).toContainText('Tested on all samples labelled "wave": 4 samples, 3 counted');
  expect(await matrixCounts(panel.getByTestId('confusion-grid'))).toEqual([['wave', '0', '1', '0', '2']]);
  await audit(page, 'Settings → Models: a test of one label');
});

test('a regression model with an anomaly block: mean absolute error and RMSE instead of a matrix, the anomaly scores per label', async ({ page, shell }) => {
  // One label and no levels: every window answers 0.95; the anomaly block says the window's peak / 100 (cli-model-test.test.ts).
  await addModel(shell.dataDir, 'level', { ...PRESETS.gestureNew, labels: ['value'], rule: { levels: [] }, modelType: 'regression', hasAnomaly: true });
  await importSamples(shell.dataDir, [
    { name: 'r1', label: '1', rows: rows([3]) },
    { name: 'r3', label: '1', rows: rows([60, 3]) },
    { name: 'r2', label: '0.5', rows: rows([3]) },
    { name: 'r4', label: 'high', rows: rows([3]) },
  ]);
  await page.goto(`${shell.url}#samples`);
  await page.getByTestId('samples-test-open').click();
  const here = page.getByTestId('model-test');
  await expect(here.getByTestId('model-test-model-pick')).toBeFocused();
  await here.getByLabel('Stride (ms)').fill('2000');
  await here.getByTestId('model-test-run').click();
  // MAE (0.05 + 0.45 + 0.05) / 3; RMSE sqrt((0.0025 + 0.2025 + 0.0025) / 3).
  await expect(here.getByTestId('model-test-headline')).toHaveText('Mean absolute error 0.183333, RMSE 0.262996 over 3 samples counted; 1 unfit.', { timeout: 20_000 });
  await expect(here.getByRole('heading', { name: 'Model level (regression)' })).toBeVisible();
  await expect(here.getByTestId('confusion-grid')).toHaveCount(0);
  await expect(here.getByTestId('model-test-anomaly').locator('tbody tr')).toHaveText([/^1\s*0\.520\s*0\.560\s*0\.600\s*2$/, /^0\.5\s*0\.520\s*0\.520\s*0\.520\s*1$/]);
  await expect(here.getByTestId('model-test-unfit').locator('li')).toHaveText(['r4.json: label "high" is not a number, and model "level" is a regression model (it answers a value)']);
  await audit(page, 'Samples: a regression model\'s test result');
});
