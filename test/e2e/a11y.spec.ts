import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { encodeWav } from '../../src-main/core/samples/formats/wav.js';
import { AT_BOARD, LEVEL_BOARD } from '../support/boards/board-on-pty.js';
import { PRESETS } from '../support/models/test-model.mjs';
import { audit } from './a11y.js';
import { addFiles, openView, openPort } from './app-page.js';
import { expect, test } from './fixtures.js';
import { tableRow } from './sample-views.js';
import { addModel, gestureRows, importSamples } from './seed.js';

// Issue 28: every view, and every dialog and panel a person can open, passes axe-core's audit
// (a11y.ts says what fails). A state is audited once it is drawn: waited for, never slept on.

/** The ? menu from the keyboard, as a person opens it (not while typing in a field). */
async function openHelp(page: Page): Promise<void> {
  await page.getByRole('button', { name: /connection checklist/ }).focus();
  await page.keyboard.press('?');
  await expect(page.getByTestId('shortcut-sheet')).toBeVisible();
}

test('Live: the first-run checklist, a board streaming with the model under it, the platform devices panel, the microphone and the ? menu', async ({ page, shell, board }) => {
  test.slow(); // a board, a model and a microphone on a loaded machine
  await addModel(shell.dataDir, 'gestures');
  const work = await mkdtemp(join(tmpdir(), 'cd-a11y-'));
  const levelFile = join(work, 'level');
  await writeFile(levelFile, '0.5');
  const { pty } = await board(LEVEL_BOARD, ['--rate', '62.5', '--axes', '3', '--level-file', levelFile]);
  await page.goto(shell.url);
  await expect(page.getByTestId('setup-checklist')).toBeVisible();
  await expect.poll(async () => Number(await page.getByTestId('rows-received').textContent()), { timeout: 15_000 }).toBeGreaterThan(10);
  await audit(page, 'Live: the simulator streaming, the first-run checklist open');

  await openPort(page, pty.hostPath);
  await expect(page.getByTestId('stream-health')).toBeVisible({ timeout: 15_000 });
  await expect(page.getByTestId('remote-devices')).toBeVisible();
  const model = page.getByTestId('live-model');
  await model.getByTestId('model-pick').selectOption('gestures');
  await expect(model.getByTestId('model-top')).toHaveAttribute('data-label', 'idle', { timeout: 15_000 });
  await writeFile(levelFile, '4');
  await expect(model.getByTestId('model-strip-canvas')).toHaveAttribute('data-labels', /idle.*wave|wave.*idle/, { timeout: 15_000 });
  await audit(page, 'Live: a board streaming, the model control and strip, the platform devices panel');

  await model.getByTestId('model-catch').check();
  await audit(page, 'Live: the model in catch mode');

  await openHelp(page);
  await audit(page, 'the ? menu: keyboard shortcuts');
  await page.getByTestId('shortcut-sheet').getByRole('button', { name: 'Diagnostics…' }).click();
  await expect(page.getByTestId('diagnostics')).toBeVisible();
  await audit(page, 'the ? menu: diagnostics');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('shortcut-sheet')).toBeHidden();

  await page.getByTestId('device-list').locator('[data-source-id="audio:default"]').click();
  await expect.poll(async () => Number(await page.getByTestId('audio-live').getAttribute('data-reports')), { timeout: 15_000 }).toBeGreaterThan(2);
  await audit(page, 'Live: the microphone');

  await openView(page, 'Samples');
  await expect(page.getByTestId('samples-empty')).toBeVisible();
  await audit(page, 'Samples: empty');
});

test('Samples: with data, the filter menus, a sample open with its classification bands and split panel, the bulk bar and its confirmations', async ({ page, shell }) => {
  test.slow();
  await addModel(shell.dataDir, 'gestures');
  await importSamples(shell.dataDir, [
    { name: 'wave.1', label: 'wave', rows: gestureRows([0.5, 3, 3, 0.5]) },
    { name: 'wave.2', label: 'wave', rows: gestureRows([3, 3]) },
    { name: 'idle.1', label: 'idle', rows: gestureRows([0.5, 0.5]) },
    { name: 'idle.2', label: 'idle', rows: gestureRows([0.5, 3]) },
    { name: 'tap.1', label: 'tap', rows: gestureRows([1]) },
    { name: 'tap.2', label: 'tap', rows: gestureRows([1, 1]) },
  ]);
  await page.goto(`${shell.url}#samples`);
  await expect(page.getByTestId('sample-table').locator('tbody tr')).toHaveCount(6);
  await expect(page.getByTestId('class-balance')).toBeVisible();
  await audit(page, 'Samples: six samples');

  for (const menu of await page.getByTestId('sample-find').locator('details.menu').all()) {
    await menu.locator('summary').click();
    await expect(menu).toHaveAttribute('open', '');
    await audit(page, `Samples: the filter menu ${await menu.getAttribute('data-testid')}`);
    await page.keyboard.press('Escape');
  }

  await tableRow(page, /^wave\.1\.json$/).getByRole('checkbox').focus();
  await page.keyboard.press('Enter');
  const view = page.getByTestId('sample-view');
  await expect(view.getByTestId('review-plot')).toHaveAttribute('data-painted', 'true');
  await audit(page, 'Samples: a sample open');
  await view.getByTestId('classify-source').selectOption('gestures');
  await view.getByTestId('classify-button').click();
  await expect(view.getByTestId('classification-band').first()).toBeVisible({ timeout: 15_000 });
  await view.getByTestId('classification-band').first().focus();
  await audit(page, 'Samples: a sample open, its classification bands');
  await page.keyboard.press('s');
  await expect(view.getByTestId('split-panel')).toBeVisible();
  await audit(page, 'Samples: a sample open, the split panel');
  await page.keyboard.press('Escape');
  await page.keyboard.press('Escape');
  await expect(view).toBeHidden();

  await tableRow(page, /^wave\.1\.json$/).getByRole('checkbox').check();
  await tableRow(page, /^idle\.1\.json$/).getByRole('checkbox').check();
  const bulk = page.getByTestId('bulk-actions');
  await audit(page, 'Samples: two samples selected, the bulk bar');
  await bulk.getByRole('button', { name: 'Export…' }).click();
  await expect(bulk.getByTestId('export-form')).toBeVisible();
  await audit(page, 'Samples: the bulk bar, export');
  await bulk.getByTestId('bulk-classify-open').click();
  await expect(bulk.getByTestId('bulk-classify-form').getByLabel('Model')).toBeVisible();
  await audit(page, 'Samples: the bulk bar, classify with a model');
  await bulk.getByRole('button', { name: 'Delete…' }).click();
  await expect(bulk.getByRole('alert')).toContainText('Delete 2 samples?');
  await audit(page, 'Samples: the bulk bar, confirming a delete');
  await bulk.getByRole('button', { name: 'Cancel' }).click();

  // An audio sample: waveform, spectrogram and playback.
  await addFiles(page, [toneFile('beep.wav')]);
  await tableRow(page, /^beep\.wav$/).getByRole('checkbox').focus();
  await page.keyboard.press('Enter');
  await expect(view).toHaveAttribute('data-kind', 'audio');
  await expect(view.getByTestId('spectrogram')).toHaveAttribute('data-drawn', 'true');
  await audit(page, 'Samples: an audio sample open');
});

/** 1 s of a 1 kHz tone at 16 kHz, as a WAV file. */
function toneFile(name: string) {
  const pcm = Int16Array.from({ length: 16_000 }, (_, i) => Math.round(12_000 * Math.sin((2 * Math.PI * 1000 * i) / 16_000)));
  return { name, mimeType: 'audio/wav', buffer: encodeWav(pcm, { sampleRate: 16_000 }) };
}

test('Live: a board with the platform firmware, recorded on the board (AT mode); the notices, information and error', async ({ page, shell, board }) => {
  const { pty } = await board(AT_BOARD, ['--at-version', '1.6.0', '--storage', 'buffer', '--time-scale', '0.05']);
  await page.goto(shell.url);
  await openPort(page, pty.hostPath);
  // The app tells the board runs the platform's firmware by itself, and says so in a notice (an
  // info notice over the AT panel once failed this audit under load: <li role="status"> in a <ul>).
  await expect(page.getByRole('status').filter({ hasText: "runs the platform's firmware" })).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('at-panel').getByTestId('at-board')).toContainText('SIMULATED_AT_BOARD', { timeout: 15_000 });
  await audit(page, 'Live: a board in AT mode, its panel, an information notice');
  await openPort(page, '/dev/capture-desk-no-such-port');
  await expect(page.getByRole('alert').filter({ hasText: 'capture-desk-no-such-port' })).toBeVisible({ timeout: 15_000 });
  await audit(page, 'Live: an error notice beside an information notice');
});

test('Samples: the confirmation of an action on all matching samples', async ({ page, shell }) => {
  test.slow(); // more than a page of samples
  await importSamples(shell.dataDir, Array.from({ length: 501 }, (_, i) => ({ name: `knock.${i}`, label: 'knock', rows: [[i, 1, 2], [i, 3, 4]] })));
  await page.goto(`${shell.url}#samples`);
  await expect(page.getByTestId('sample-table').locator('tbody tr')).toHaveCount(500, { timeout: 15_000 });
  await page.getByRole('checkbox', { name: 'Select all samples shown' }).check();
  const bulk = page.getByTestId('bulk-actions');
  await bulk.getByRole('button', { name: 'Select all 501 matching' }).click();
  await bulk.getByRole('button', { name: 'Delete…' }).click();
  await expect(bulk.getByTestId('bulk-question')).toContainText('501');
  await audit(page, 'Samples: confirming a delete of all 501 matching', '[data-testid=bulk-actions]');
});

test('Settings: the form, keys, connection, watched folders and models', async ({ page, shell }) => {
  await addModel(shell.dataDir, 'gestures');
  await addModel(shell.dataDir, 'old', PRESETS.gestureOld);
  await page.goto(`${shell.url}#settings`);
  await expect(page.locator('[data-testid=model][data-name=old]')).toBeVisible();
  await expect(page.getByTestId('api-key-status')).toHaveText('not set');
  await audit(page, 'Settings with two models, one without its axes');
  const model = page.locator('[data-testid=model][data-name=gestures]');
  await model.getByRole('button', { name: 'Remove model gestures' }).click();
  await expect(model.getByRole('alert')).toBeVisible();
  await audit(page, 'Settings: removing a model');
});

test('the dark theme: Live, Samples with a classified sample open, Settings', async ({ page, shell }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await addModel(shell.dataDir, 'gestures');
  await importSamples(shell.dataDir, [
    { name: 'wave.1', label: 'wave', rows: gestureRows([0.5, 3, 3, 0.5]) },
    { name: 'idle.1', label: 'idle', rows: gestureRows([0.5, 0.5]) },
  ]);
  await page.goto(shell.url);
  await expect(page.getByTestId('setup-checklist')).toBeVisible();
  await expect.poll(async () => Number(await page.getByTestId('rows-received').textContent()), { timeout: 15_000 }).toBeGreaterThan(10);
  await audit(page, 'dark: Live, the simulator streaming, the first-run checklist open');

  await openView(page, 'Samples');
  await expect(page.getByTestId('sample-table').locator('tbody tr')).toHaveCount(2);
  await expect(page.getByTestId('class-balance')).toBeVisible();
  await tableRow(page, /^wave\.1\.json$/).getByRole('checkbox').check();
  await audit(page, 'dark: Samples, a sample selected');
  await page.keyboard.press('Enter');
  const view = page.getByTestId('sample-view');
  await expect(view.getByTestId('review-plot')).toHaveAttribute('data-painted', 'true');
  await view.getByTestId('classify-source').selectOption('gestures');
  await view.getByTestId('classify-button').click();
  await expect(view.getByTestId('classification-band').first()).toBeVisible({ timeout: 15_000 });
  await audit(page, 'dark: a sample open with its classification bands');
  await page.keyboard.press('Escape');
  await expect(view).toBeHidden();

  await openView(page, 'Settings');
  await expect(page.locator('[data-testid=model][data-name=gestures]')).toBeVisible();
  await audit(page, 'dark: Settings');
});
