// Classifying samples on this computer with an added model (issue 26, part 4), in the browser shell:
// a model added to the data folder with `capture-desk model add` (the test model kit's export) and
// samples imported with `samples import`, never uploaded, no platform set up. From the sample view:
// the model picked as the source, the bands at the windows the model was given with the labels it
// answers, "on this computer: gestures" said in words, the result found by the table's "Model says"
// filter and shown again after a reload. From the Samples view: "Classify with model…" on all
// matching samples, with its progress bar and Cancel, and the samples it cannot take left with why.
import type { Page } from '@playwright/test';
import { expectedTop, PRESETS, rowsWithEnergies } from '../support/models/test-model.mjs';
import { openView, screenshot } from './app-page.js';
import { expect, test } from './fixtures.js';
import { modelFilterFinds, tableRow } from './sample-views.js';
import { addModel, importSamples } from './seed.js';

const G = PRESETS.gestureNew; // 62.5 Hz (16 ms a row), windows of 125 rows (2000 ms), 3 axes; wave when mean |axis 0| >= 2

/** Rows made of one model window per energy, in order. */
const rowsOf = (energies: number[]) => rowsWithEnergies(G, energies);

async function openSample(page: Page, name: RegExp) {
  await openView(page, 'Samples');
  await tableRow(page, name).dblclick();
  const view = page.getByTestId('sample-view');
  await expect(view.getByTestId('review-plot')).toHaveAttribute('data-painted', 'true');
  return view;
}

test('a never-uploaded sample classified on this computer from its sample view: the bands, the source in words, the "Model says" filter', async ({ page, shell }, testInfo) => {
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await addModel(shell.dataDir, 'gestures');
  await addModel(shell.dataDir, 'kws', PRESETS.audioNew);
  const energies = [0.5, 3, 3, 3, 0.5];
  const rows = rowsOf(energies);
  await importSamples(shell.dataDir, [{ name: 'take', label: 'wave', rows }]);
  await page.goto(shell.url);

  const view = await openSample(page, /^take\.json$/);
  const source = view.getByTestId('classify-source');
  // Nothing of the platform is set up: its Classify waits for an upload; the models are offered, the one that cannot take 3 axes disabled with why.
  await expect(source).toHaveValue('');
  await expect(view.getByTestId('classify-button')).toBeDisabled();
  await expect(view.getByTestId('classify-upload-first')).toContainText('or classify it with a model on this computer');
  await expect(source.locator('option[value="kws"]')).toBeDisabled();
  await expect(source.locator('option[value="kws"]')).toHaveText('model kws, on this computer (cannot: it takes 1 axis; this sample has 3)');
  await expect(view.getByTestId('classify-source-help')).toHaveText('Model kws cannot classify this sample: it takes 1 axis; this sample has 3.');

  await source.selectOption('gestures');
  await expect(view.getByTestId('classify-none')).toHaveText('Not classified on this computer with model gestures yet.');
  await expect(view.getByTestId('classify-variant')).toHaveCount(0); // the platform's choices go with it
  await expect(view.getByTestId('classify-button')).toBeEnabled();
  await view.getByTestId('classify-button').click();

  // Windows of 2000 ms every 500 ms from the start, each labelled as the model answers for exactly those rows.
  const n = (energies.length * 2000 - 2000) / 500 + 1;
  const want = Array.from({ length: n }, (_, i) => {
    const first = Math.round((i * 500) / 16);
    return { startMs: i * 500, endMs: i * 500 + 2000, ...expectedTop(G, Float32Array.from(rows.slice(first, first + G.frameSampleCount).flat())) };
  });
  const bands = view.getByTestId('classification-band');
  await expect(bands).toHaveCount(n);
  expect(await bands.evaluateAll((els) => els.map((e) => [Number(e.getAttribute('data-start-ms')), e.getAttribute('data-label')]))).toEqual(want.map((w) => [w.startMs, w.label]));
  const waves = want.filter((w) => w.label === 'wave').length;
  expect(waves).toBeGreaterThan(0);
  expect(waves).toBeLessThan(n);
  await expect(view.getByTestId('classify-summary')).toHaveText(new RegExp(`^wave: ${waves} of ${n} windows, mean confidence 0\\.\\d\\d`));
  await expect(view.getByTestId('classify-made')).toHaveText(/^Classified .+ \(just now\) · on this computer: gestures \(uncertain below 0\.6\) · window 2000 ms every 500 ms$/);
  await expect(view.getByTestId('classify-panel')).toHaveAttribute('aria-label', 'Classification on this computer by model gestures');
  // The bands read out like the platform's: one tab stop, each window's label and confidence on focus.
  await view.getByTestId('classify-button').focus();
  for (let i = 0; i < 30 && !(await page.evaluate(() => document.activeElement?.getAttribute('data-testid') === 'classification-band')); i++) await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(`Window 1 of ${n}, 0.00–2.00 s: ${want[0]!.label}, ${want[0]!.confidence.toFixed(2)} confidence`);
  await screenshot(page, testInfo, 'classified-here');

  // The table: what the model says, and where that came from; the "Model says" filter finds it.
  await page.keyboard.press('Escape');
  await page.keyboard.press('Escape');
  await expect(view).toBeHidden();
  const row = tableRow(page, /^take\.json$/);
  await expect(row.getByTestId('model-says')).toHaveText(new RegExp(`^wave: ${waves} of ${n} windows.* · on this computer: gestures$`));
  await expect(row).toHaveAttribute('data-state', 'local');
  expect(waves * 2).toBeGreaterThan(n); // most windows say wave: so does the take
  // It agrees with the take's label, offline: "the model disagrees" finds nothing.
  await modelFilterFinds(page, row, 'wave');

  // After a reload the sample view opens on the kept result, its model picked; nothing runs again.
  await page.goto(shell.url);
  const again = await openSample(page, /^take\.json$/);
  await expect(again.getByTestId('classify-source')).toHaveValue('gestures');
  await expect(again.getByTestId('classification-band')).toHaveCount(n);
  await expect(again.getByTestId('classify-made')).toContainText('on this computer: gestures');
  expect(pageErrors).toEqual([]);
});

test('"Classify with model…" on all matching samples: a progress bar and Cancel, then a run to the end that says what it left alone', async ({ page, shell }, testInfo) => {
  test.slow(); // 500 rows drawn, and a page of 500 before "all matching" is offered
  await addModel(shell.dataDir, 'gestures');
  // 100 ms a window: 164 windows spread over the model workers (one per core) still take seconds.
  await addModel(shell.dataDir, 'slow', { ...G, faults: { slowMs: 100 } });
  // More than a page: 501 a few rows long (too short for a window) and 4 of three windows.
  const files = [
    ...Array.from({ length: 501 }, (_, i) => ({ name: `wave.short.${i}`, label: 'wave', rows: [[i, 1, 2], [i, 3, 4], [i, 5, 6]] })),
    ...Array.from({ length: 4 }, (_, i) => ({ name: `wave.long.${i}`, label: 'wave', rows: rowsOf([3 + i, 0.5, 3]) })),
  ];
  await importSamples(shell.dataDir, files);
  await page.goto(`${shell.url}#samples?q=wave`);
  const rows = page.getByTestId('sample-table').locator('tbody tr');
  await expect(rows).toHaveCount(500, { timeout: 15_000 });
  const bulk = page.getByTestId('bulk-actions');
  await page.getByRole('checkbox', { name: 'Select all samples shown' }).check();
  await bulk.getByRole('button', { name: 'Select all 505 matching' }).click();
  await expect(bulk.getByTestId('selected-count')).toHaveText('All 505 matching samples selected');

  // The slow model, a window every 100 ms: long enough to watch and cancel.
  await bulk.getByTestId('bulk-classify-open').click();
  const form = bulk.getByTestId('bulk-classify-form');
  await form.getByLabel('Model').selectOption('slow');
  await form.getByLabel('Stride (ms)').fill('100');
  await form.getByRole('button', { name: 'Classify 505 samples' }).click();
  await expect(bulk.getByTestId('bulk-question')).toHaveText('Classify 4 samples on this computer with model "slow", a window every 100 ms? Each result is kept as it is made. 501 stay as they are: shorter than one window of model "slow" (2000 ms).');
  await bulk.getByRole('button', { name: 'Classify', exact: true }).click();
  const bar = bulk.getByTestId('job-classify');
  await expect(bar).toContainText(/Classifying: [1-3] of 4/, { timeout: 20_000 });
  await expect(bar.getByRole('progressbar', { name: 'Classifying progress' })).toHaveAttribute('aria-valuenow', /^(25|50|75)$/);
  await screenshot(page, testInfo, 'bulk-classify-progress');
  await bar.getByRole('button', { name: 'Cancel' }).click();
  const cancelled = page.getByRole('status').filter({ hasText: 'Classifying with model "slow" was cancelled after' });
  await expect(cancelled).toHaveText(/was cancelled after [1-3] of 4 samples; the [1-3] classified keep their results\./);
  await expect(bar).toHaveCount(0);

  // Again with the quick model, to the end.
  await bulk.getByTestId('bulk-classify-open').click();
  await form.getByLabel('Model').selectOption('gestures');
  await form.getByLabel('Stride (ms)').fill('');
  await form.getByRole('button', { name: 'Classify 505 samples' }).click();
  await expect(bulk.getByTestId('bulk-question')).toContainText('Classify 4 samples on this computer with model "gestures"?');
  await bulk.getByRole('button', { name: 'Classify', exact: true }).click();
  await expect(page.getByRole('status').filter({ hasText: '4 samples classified on this computer with model "gestures".' }))
    .toContainText('501 samples left alone: shorter than one window of model "gestures" (2000 ms).', { timeout: 20_000 });
  // The long ones say what the model made of them, on this computer.
  const long = tableRow(page, /^wave\.long\.0\.json$/);
  await page.goto(`${shell.url}#samples?q=long`);
  await expect(long.getByTestId('model-says')).toContainText('· on this computer: gestures');
  await expect(page.getByTestId('sample-table').getByTestId('model-says').filter({ hasText: 'on this computer: gestures' })).toHaveCount(4);
});
