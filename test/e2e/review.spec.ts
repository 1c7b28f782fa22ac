import type { Page } from '@playwright/test';
import { encodeWav } from '../../src-main/core/samples/formats/wav.js';
import { encodeCbor, sensorDoc } from '../support/ingestion-server/fixtures.js';
import { startServe } from '../support/cli.js';
import { addFiles, openView, pressAfterPauses, screenshot } from './app-page.js';
import { expect, test } from './fixtures.js';
import { dragAcrossPlot } from './sample-views.js';

/** 10 s of three axes at 100 Hz, with a spike the plot must show at any zoom. */
function sensorFile(name: string) {
  const values = Array.from({ length: 1000 }, (_, i) => [Math.sin(i / 20) * 5, Math.cos(i / 35) * 2, i === 500 ? 20 : 0.01 * i]);
  return { name, mimeType: 'application/cbor', buffer: encodeCbor(sensorDoc(values, 10)) };
}

/** 2 s of a 1 kHz tone at 16 kHz. */
function toneFile(name: string) {
  const rate = 16000;
  const pcm = Int16Array.from({ length: rate * 2 }, (_, i) => Math.round(12000 * Math.sin((2 * Math.PI * 1000 * i) / rate)));
  return { name, mimeType: 'audio/wav', buffer: encodeWav(pcm, { sampleRate: rate }) };
}

const row = (page: Page, name: string | RegExp) => page.getByTestId('sample-table').locator('tbody tr', { hasText: name });

test('a sensor sample is reviewed, zoomed, cropped and split; an audio sample shows its spectrogram and plays', async ({ page, shell }, testInfo) => {
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(shell.url);
  await openView(page, 'Samples');
  await page.getByLabel('Queue for upload now').uncheck();
  await addFiles(page, [sensorFile('wave.01.cbor'), toneFile('beep.01.wav')]);
  await expect(page.getByTestId('sample-table').locator('tbody tr')).toHaveCount(2);

  // Open with a double-click: every axis is drawn.
  await row(page, 'wave.01.cbor').dblclick();
  const view = page.getByTestId('sample-view');
  await expect(view).toBeVisible();
  await expect(view.getByTestId('review-plot')).toHaveAttribute('data-painted', 'true');
  await expect(view).toContainText('1,000 rows every 10 ms');
  await expect(view.getByTestId('view-range')).toContainText('0.00–10.00 s');
  await screenshot(page, testInfo, 'sensor-view');

  // Zoom with the keyboard, pan, back to the whole sample.
  await page.keyboard.press('+');
  await expect(view.getByTestId('view-range')).toContainText('2.50–7.50 s');
  await page.keyboard.press('ArrowRight');
  await expect(view.getByTestId('view-range')).toContainText('3.00–8.00 s');
  await page.keyboard.press('0');
  await expect(view.getByTestId('view-range')).toContainText('0.00–10.00 s');
  // The wheel zooms around the pointer: at 20 % of the width, 2 s stays 20 % from the left.
  const plotBox = (await view.locator('.u-over').boundingBox())!;
  await page.mouse.move(plotBox.x + plotBox.width * 0.2, plotBox.y + plotBox.height / 2);
  await page.mouse.wheel(0, -100);
  await expect(view.getByTestId('view-range')).toContainText('0.40–8.40 s');
  await page.keyboard.press('0');

  // Select with the mouse across the middle of the plot, then C crops.
  await dragAcrossPlot(page, view, 0.2, 0.5);
  await expect(view.getByTestId('view-range')).toContainText('selected 3.0');
  await screenshot(page, testInfo, 'sensor-selection');
  await page.keyboard.press('c');
  await expect(view.getByTestId('review-status')).toContainText('Cropped to a new sample "wave.01.crop.cbor"');
  await expect(row(page, 'wave.01.crop.cbor')).toHaveCount(1);

  // S opens the split: 100 windows of 100 ms, with a progress bar on the way.
  await page.keyboard.press('s');
  const split = view.getByTestId('split-panel');
  await split.getByLabel('Window length (ms)').fill('100');
  const sawProgress = page.waitForFunction(() => document.querySelector('[data-testid=job-split] [role=progressbar]') !== null, null, { timeout: 15_000 }).then(() => true, () => false);
  await split.getByRole('button', { name: 'Split' }).click();
  await expect(view.getByTestId('review-status')).toHaveText('Split into 100 new samples; the original stays.', { timeout: 20_000 });
  expect(await sawProgress).toBe(true);
  await expect(page.getByTestId('sample-table').locator('tbody tr')).toHaveCount(103);
  await expect(row(page, 'wave.01.w001.cbor')).toHaveCount(1);
  await expect(row(page, 'wave.01.cbor')).toHaveCount(1); // the original stays
  await screenshot(page, testInfo, 'after-split');

  // A split of 1000 windows, cancelled from its progress bar: nothing of it is kept.
  await page.keyboard.press('s');
  await split.getByLabel('Window length (ms)').fill('10');
  await split.getByRole('button', { name: 'Split' }).click();
  await split.getByTestId('job-split').getByRole('button', { name: 'Cancel' }).click();
  await expect(view.getByTestId('review-status')).toHaveText('Split cancelled; nothing was kept.');
  await expect(page.getByTestId('sample-table').locator('tbody tr')).toHaveCount(103);
  await split.getByRole('button', { name: 'Close' }).click();

  // Esc closes the view; the table has focus again for the next sample.
  await page.keyboard.press('Escape');
  await expect(view).toBeHidden();

  // Audio: Enter on the row opens it; waveform, spectrogram, Space plays with a moving playhead.
  await row(page, 'beep.01.wav').getByRole('checkbox').focus();
  await page.keyboard.press('Enter');
  await expect(view).toHaveAttribute('data-kind', 'audio');
  await expect(view.getByTestId('review-plot')).toHaveAttribute('data-painted', 'true');
  await expect(view.getByTestId('spectrogram')).toHaveAttribute('data-drawn', 'true');
  await expect(view).toContainText('Spectrogram, 0–8.0 kHz');
  await page.keyboard.press('Space');
  await expect(view.getByTestId('play')).toHaveAttribute('aria-pressed', 'true');
  await screenshot(page, testInfo, 'audio-view');
  await expect(view.getByTestId('play')).toHaveAttribute('aria-pressed', 'false', { timeout: 10_000 }); // 2 s tone ends

  // Esc lands back on the row it was opened from; Enter opens it again.
  await page.keyboard.press('Escape');
  await expect(view).toBeHidden();
  await expect(row(page, 'beep.01.wav').getByRole('checkbox')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(view).toHaveAttribute('data-kind', 'audio');

  // Discard the original from the view.
  await view.getByRole('button', { name: 'Discard original…' }).click();
  await view.getByRole('button', { name: 'Discard original', exact: true }).click();
  await expect(view).toBeHidden();
  await expect(row(page, 'beep.01.wav')).toHaveCount(0);
  expect(pageErrors).toEqual([]);
});

test('selected samples export with progress into the data folder', async ({ page, shell }, testInfo) => {
  await page.goto(shell.url);
  await openView(page, 'Samples');
  await page.getByLabel('Queue for upload now').uncheck();
  await addFiles(page, [sensorFile('wave.01.cbor'), sensorFile('idle.01.cbor')]);
  await expect(page.getByTestId('sample-table').locator('tbody tr')).toHaveCount(2);
  await page.getByRole('checkbox', { name: 'Select all samples shown' }).check();
  const bulk = page.getByTestId('bulk-actions');
  await bulk.getByRole('button', { name: 'Export…' }).click();
  await bulk.getByLabel('sensor data as CSV').check();
  await bulk.getByRole('button', { name: 'Export 2 samples' }).click();
  await expect(page.getByRole('status').filter({ hasText: `Exported 2 files with info.labels to ${shell.dataDir}/exports/` })).toBeVisible();
  await screenshot(page, testInfo, 'export');
});

test('an export folder typed without its full path is refused, naming the path it may have meant; the form keeps it to correct', async ({ page, shell }) => {
  // It went into the folder `serve` was started in, and the notice said only "… to myexport.".
  await page.goto(shell.url);
  await openView(page, 'Samples');
  await page.getByLabel('Queue for upload now').uncheck();
  await addFiles(page, [sensorFile('wave.01.cbor')]);
  await page.getByRole('checkbox', { name: 'Select all samples shown' }).check();
  const bulk = page.getByTestId('bulk-actions');
  await bulk.getByRole('button', { name: 'Export…' }).click();
  await bulk.getByLabel('Export folder').fill('myexport');
  await bulk.getByRole('button', { name: 'Export 1 sample' }).click();
  await expect(page.getByRole('alert').filter({ hasText: `Export failed: Cannot export into "myexport": type the folder's full path, such as ${shell.dataDir}/exports/myexport` })).toBeVisible();
  await expect(bulk.getByLabel('Export folder')).toHaveValue('myexport');
  await bulk.getByLabel('Export folder').fill(`${shell.dataDir}/exports/myexport`);
  await bulk.getByRole('button', { name: 'Export 1 sample' }).click();
  await expect(page.getByRole('status').filter({ hasText: `Exported 1 file with info.labels to ${shell.dataDir}/exports/myexport.` })).toBeVisible();
});

test('without a keychain, an unsigned sample is cropped: only a signed one needs the HMAC key', async ({ page, shell }) => {
  // No D-Bus session (a lab PC, a container): it said "Crop failed: No keychain …" for every crop.
  const serve = await startServe(['--port', '0', '--data-dir', `${shell.dataDir}-nokeychain`], { env: { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/no-session-bus' } });
  try {
    await page.goto(serve.url);
    await openView(page, 'Samples');
    await page.getByLabel('Queue for upload now').uncheck();
    await addFiles(page, [sensorFile('wave.01.cbor')]);
    await row(page, 'wave.01.cbor').dblclick();
    const view = page.getByTestId('sample-view');
    await expect(view.getByTestId('review-plot')).toHaveAttribute('data-painted', 'true');
    await dragAcrossPlot(page, view, 0.2, 0.5);
    await page.keyboard.press('c');
    await expect(view.getByTestId('review-status')).toContainText('Cropped to a new sample "wave.01.crop.cbor"');
    await expect(row(page, 'wave.01.crop.cbor')).toHaveCount(1);
    await expect(page.getByRole('alert').filter({ hasText: 'Crop failed' })).toHaveCount(0);
  } finally {
    serve.child.kill('SIGTERM');
  }
});

test('a capture with marked events shows them in the sample view and splits around them', async ({ page, shell }, testInfo) => {
  await page.goto(shell.url);
  // The simulated sensor streams at start; record it with two events marked by number keys.
  await expect.poll(async () => Number(await page.getByTestId('rows-received').textContent()), { timeout: 10_000 }).toBeGreaterThan(10);
  const panel = page.getByTestId('record-bar');
  await panel.getByLabel('Label', { exact: true }).fill('gesture');
  await panel.getByLabel('Length (s)').fill('');
  await panel.getByTestId('event-names').fill('tap, shake');
  await panel.getByTestId('event-names').press('Tab');
  await page.locator('body').click({ position: { x: 5, y: 400 } });
  await page.keyboard.press('Space');
  await expect(page.getByTestId('recording-indicator')).toContainText('REC');
  await pressAfterPauses(page, [[400, '1'], [500, '2'], [500, '0'], [400, 'Space']]);
  await expect(page.getByTestId('recording-saved')).toContainText('Saved 1 sample', { timeout: 10_000 });

  await openView(page, 'Samples');
  await expect(page.getByTestId('sample-table').locator('tbody tr')).toHaveCount(1);
  await page.getByTestId('sample-table').locator('tbody tr').first().dblclick();
  const view = page.getByTestId('sample-view');
  await expect(view.getByTestId('review-plot')).toHaveAttribute('data-painted', 'true');
  await expect(view).toContainText('4 marked events'); // gesture, tap, shake, gesture
  await screenshot(page, testInfo, 'events-view');

  await page.keyboard.press('s');
  const split = view.getByTestId('split-panel');
  await split.getByLabel('Around marked events').check();
  await split.getByLabel('Padding (ms)').fill('50');
  await split.getByRole('button', { name: 'Split' }).click();
  await expect(view.getByTestId('review-status')).toHaveText('Split into 4 new samples; the original stays.');
  await expect(page.getByTestId('sample-table').locator('tbody tr td.name', { hasText: /^tap\.gesture\..*\.e2\.cbor$/ })).toHaveCount(1);
  const labels = await page.getByTestId('sample-table').locator('tbody tr td.label').allTextContents();
  expect(labels.sort()).toEqual(['gesture', 'gesture', 'gesture', 'shake', 'tap']);
});

test('"Discard original…" from the keyboard: the question takes the focus to Keep, and Keep or Esc bring it back; nothing is deleted', async ({ page, shell }) => {
  await page.goto(shell.url);
  await openView(page, 'Samples');
  await page.getByLabel('Queue for upload now').uncheck();
  await addFiles(page, [sensorFile('keep.01.cbor')]);
  await row(page, 'keep.01.cbor').dblclick();
  const view = page.getByTestId('sample-view');
  await expect(view.getByTestId('review-plot')).toHaveAttribute('data-painted', 'true');

  const ask = view.getByRole('button', { name: 'Discard original…' });
  await ask.focus();
  await page.keyboard.press('Enter');
  const keep = view.getByRole('button', { name: 'Keep', exact: true });
  await expect(keep).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(ask).toBeFocused();

  await page.keyboard.press('Enter');
  await expect(keep).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(ask).toBeFocused();
  await expect(view).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(view).toBeHidden();
  await expect(row(page, 'keep.01.cbor')).toHaveCount(1);
});
