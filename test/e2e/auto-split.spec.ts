import { mkdir, readFile } from 'node:fs/promises';
import type { Locator, Page } from '@playwright/test';
import { spokenTake } from '../support/audio/speech.js';
import { gestureTake } from '../support/gestures.js';
import { runCli } from '../support/cli.js';
import { encodeCbor, sensorDoc } from '../support/ingestion-server/fixtures.js';
import { addFiles, openView, screenshot } from './app-page.js';
import { expect, test } from './fixtures.js';
import { dragAcrossPlot } from './sample-views.js';

// The sample view's third way to split: events detected automatically, previewed over the plot
// (and spectrogram), adjusted, then cut. Real speech from espeak-ng over room noise and hum.

const WORDS = ['yes', 'no', 'up', 'down', 'left', 'right', 'go', 'three'];
const GAPS_MS = [800, 1300, 600, 1000, 700, 1500, 900];
const row = (page: Page, name: string | RegExp) => page.getByTestId('sample-table').locator('tbody tr', { hasText: name });

/** The windows the panel lists, in ms (shown to 10 ms). */
async function listed(panel: Locator): Promise<Array<{ startMs: number; endMs: number }>> {
  const texts = await panel.getByTestId('detected-window').locator('.t').allTextContents();
  return texts.map((t) => {
    const [a, b] = t.replace(/ s.*$/, '').split('–').map(Number);
    return { startMs: a! * 1000, endMs: b! * 1000 };
  });
}

test('spoken words are detected, previewed over the plot, adjusted and split into one sample each', async ({ page, shell }, testInfo) => {
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  const dir = testInfo.outputPath('take');
  await mkdir(dir, { recursive: true });
  const take = await spokenTake(dir, WORDS, GAPS_MS);

  await page.goto(shell.url);
  await openView(page, 'Samples');
  await page.getByLabel('Queue for upload now').uncheck();
  await addFiles(page, [{ name: 'keyword.take.wav', mimeType: 'audio/wav', buffer: await readFile(take.file) }]);
  await row(page, 'keyword.take.wav').dblclick();
  const view = page.getByTestId('sample-view');
  await expect(view.getByTestId('spectrogram')).toHaveAttribute('data-drawn', 'true');

  await page.keyboard.press('s');
  const split = view.getByTestId('split-panel');
  await split.getByLabel('Detected automatically').check();
  const count = split.getByTestId('detected-count');
  await expect(count).toHaveAttribute('data-count', String(WORDS.length));
  // Every word whole inside its window (the list shows 10 ms steps).
  const windows = await listed(split);
  windows.forEach((w, i) => {
    expect(w.startMs, `"${take.words[i]!.word}"`).toBeLessThanOrEqual(take.words[i]!.startMs + 5);
    expect(w.endMs, `"${take.words[i]!.word}"`).toBeGreaterThanOrEqual(take.words[i]!.endMs - 5);
    expect(w.endMs - w.startMs).toBeCloseTo(1000, -1);
  });
  await expect(split.getByTestId('split-detected')).toHaveText(`Split into ${WORDS.length} samples`);
  // The picture for the README: the windows over the waveform and the spectrogram.
  await page.screenshot({ path: 'test-results/auto-split-preview.png' });
  await screenshot(page, testInfo, 'auto-split-preview');

  // The windows follow the threshold: far up, fewer words; back down, all of them again.
  const threshold = split.getByTestId('detect-threshold');
  await threshold.fill('35');
  await expect(count).not.toHaveAttribute('data-count', String(WORDS.length));
  expect(Number(await count.getAttribute('data-count'))).toBeLessThan(WORDS.length);
  await threshold.fill('12');
  await expect(count).toHaveAttribute('data-count', String(WORDS.length));

  // Play one window: the player runs (and stops at the window's end).
  await split.getByRole('button', { name: 'Play window 2' }).click();
  await expect(view.getByTestId('play')).toHaveAttribute('aria-pressed', 'true');
  await expect(view.getByTestId('play')).toHaveAttribute('aria-pressed', 'false', { timeout: 10_000 });

  // Remove the third window; drag the first one 0.3 s to the right on the plot.
  await split.getByRole('button', { name: 'Remove window 3' }).click();
  await expect(count).toHaveAttribute('data-count', String(WORDS.length - 1));
  const first = windows[0]!;
  // Grabbed 500 ms into the first window and moved 300 ms later.
  await dragAcrossPlot(page, view, (first.startMs + 500) / take.lengthMs, (first.startMs + 800) / take.lengthMs);
  const moved = (await listed(split))[0]!;
  expect(moved.startMs - first.startMs).toBeGreaterThan(200);
  expect(moved.startMs - first.startMs).toBeLessThan(400);
  expect(moved.endMs - moved.startMs).toBeCloseTo(1000, -1);
  await expect(view.getByTestId('view-range')).not.toContainText('selected'); // the drag did not select

  await split.getByTestId('split-detected').click();
  await expect(view.getByTestId('review-status')).toHaveText(`Split into ${WORDS.length - 1} new samples; the original stays.`, { timeout: 20_000 });
  await expect(page.getByTestId('sample-table').locator('tbody tr')).toHaveCount(WORDS.length);
  await expect(row(page, /keyword\.take\.w\d+\.wav/)).toHaveCount(WORDS.length - 1);
  for (const text of await row(page, /keyword\.take\.w\d+\.wav/).allTextContents()) expect(text).toContain('keyword');
  expect(pageErrors).toEqual([]);
});

test('gestures on an accelerometer are split with the project window from Settings; nothing found says what to do', async ({ page, shell }, testInfo) => {
  const plan = [
    { kind: 'shake' as const, atMs: 3000, ms: 900 },
    { kind: 'wave' as const, atMs: 7500, ms: 1200 },
    { kind: 'tilt' as const, atMs: 12_000, ms: 1000 },
  ];
  const take = gestureTake(plan, 16_000);
  const still = gestureTake([], 8000);
  await page.goto(shell.url);
  // The impulse's window, set once: automatic splits cut windows of that length.
  await openView(page, 'Settings');
  const settings = page.getByTestId('settings');
  await settings.getByLabel('Project window (ms)').fill('2000');
  await settings.getByRole('button', { name: 'Save settings' }).click();
  await expect(settings.getByRole('status')).toHaveText('Saved.');
  await openView(page, 'Samples');
  await page.getByLabel('Queue for upload now').uncheck();
  await addFiles(page, [
    { name: 'gesture.moves.cbor', mimeType: 'application/cbor', buffer: encodeCbor(sensorDoc(take.values, take.intervalMs)) },
    { name: 'idle.still.cbor', mimeType: 'application/cbor', buffer: encodeCbor(sensorDoc(still.values, still.intervalMs)) },
  ]);
  await row(page, 'gesture.moves.cbor').dblclick();
  const view = page.getByTestId('sample-view');
  await expect(view.getByTestId('review-plot')).toHaveAttribute('data-painted', 'true');
  await view.getByRole('button', { name: 'Split…' }).click();
  const split = view.getByTestId('split-panel');
  await split.getByLabel('Detected automatically').check();
  await expect(split.getByTestId('detected-count')).toHaveAttribute('data-count', '3');
  await expect(split.getByLabel('Window length (ms)')).toHaveValue('2000');
  for (const t of await split.getByTestId('detected-window').locator('.t').allTextContents()) {
    const [a, b] = t.replace(/ s.*$/, '').split('–').map(Number);
    expect(b! - a!).toBeCloseTo(2, 2);
  }
  await screenshot(page, testInfo, 'auto-split-gestures');
  await split.getByTestId('split-detected').click();
  await expect(view.getByTestId('review-status')).toHaveText('Split into 3 new samples; the original stays.', { timeout: 20_000 });
  await page.keyboard.press('Escape');
  await expect(view).toBeHidden();

  await row(page, 'idle.still.cbor').dblclick();
  await expect(view.getByTestId('review-plot')).toHaveAttribute('data-painted', 'true');
  await view.getByRole('button', { name: 'Split…' }).click();
  await split.getByLabel('Detected automatically').check();
  await expect(split).toContainText('No events found above the noise floor; lower the threshold.');
  await expect(split.getByTestId('split-detected')).toBeDisabled();
});

/** Presses Tab (or Shift+Tab) until `target` has focus; fails after `max` presses. */
async function tabTo(page: Page, target: Locator, key: 'Tab' | 'Shift+Tab' = 'Tab', max = 40): Promise<void> {
  for (let n = 0; n < max; n++) {
    if (await target.evaluate((el) => el === document.activeElement)) return;
    await page.keyboard.press(key);
  }
  await expect(target).toBeFocused();
}

/** The start of a window band, exactly (aria-valuenow), in ms. */
const startOf = async (handle: Locator) => Number(await handle.getAttribute('aria-valuenow'));

test('detected windows are moved, played, removed and split with the keyboard alone', async ({ page, shell }, testInfo) => {
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  const dir = testInfo.outputPath('take');
  await mkdir(dir, { recursive: true });
  const take = await spokenTake(dir, WORDS.slice(0, 4), GAPS_MS.slice(0, 3));

  await page.goto(shell.url);
  await openView(page, 'Samples');
  await page.getByLabel('Queue for upload now').uncheck();
  await addFiles(page, [{ name: 'keys.take.wav', mimeType: 'audio/wav', buffer: await readFile(take.file) }]);
  await row(page, 'keys.take.wav').getByRole('checkbox').focus();
  await page.keyboard.press('Enter');
  const view = page.getByTestId('sample-view');
  await expect(view.getByTestId('review-plot')).toHaveAttribute('data-painted', 'true');

  // S opens the panel on its first way; the arrow skips the disabled "marked events" to "detected".
  await page.keyboard.press('s');
  const split = view.getByTestId('split-panel');
  await expect(split.getByLabel('Fixed windows')).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(split.getByLabel('Detected automatically')).toBeChecked();
  await expect(split.getByTestId('detected-count')).toHaveAttribute('data-count', '4');
  const handles = view.getByTestId('window-handle');
  await expect(handles).toHaveCount(4);
  const before = await listed(split);

  // Tab reaches the first window on the plot; its name says its number and times.
  const first = view.getByRole('slider', { name: /^Window 1:/ });
  await tabTo(page, first);
  const sec = (ms: number) => (ms / 1000).toFixed(2);
  const start0 = await startOf(first);
  await expect(first).toHaveAccessibleName(`Window 1: ${sec(start0)} s – ${sec(start0 + 1000)} s`);
  expect(start0).toBeCloseTo(before[0]!.startMs, -1);
  await screenshot(page, testInfo, 'split-window-focused');

  // → moves by 10 ms, Shift+→ by 100 ms, exactly; the view does not pan.
  const viewRange = await view.getByTestId('view-range').textContent();
  await page.keyboard.press('ArrowRight');
  await expect.poll(() => startOf(first)).toBeCloseTo(start0 + 10, 6);
  await page.keyboard.press('Shift+ArrowRight');
  await expect.poll(() => startOf(first)).toBeCloseTo(start0 + 110, 6);
  await expect(first).toHaveAccessibleName(`Window 1: ${sec(start0 + 110)} s – ${sec(start0 + 1110)} s`);
  await expect(split.getByTestId('detected-window').first().locator('.t')).toHaveText(`${sec(start0 + 110)}–${sec(start0 + 1110)} s`);
  await expect(view.getByTestId('view-range')).toHaveText(viewRange!);
  await expect(first).toBeFocused();

  // Held against the start: it stops at 0 s with its length kept, as dragging does.
  for (let n = 0; n < Math.ceil((start0 + 110) / 100) + 3; n++) await page.keyboard.press('Shift+ArrowLeft');
  await expect(first).toHaveAccessibleName('Window 1: 0.00 s – 1.00 s');
  expect(await startOf(first)).toBe(0);
  await page.keyboard.press('ArrowLeft');
  expect(await startOf(first)).toBe(0);
  await page.keyboard.press('ArrowRight');
  await expect.poll(() => startOf(first)).toBeCloseTo(10, 6);

  // Space plays the focused window (and stops at its end); the view's own Space did not run too.
  await page.keyboard.press('Space');
  await expect(view.getByTestId('play')).toHaveAttribute('aria-pressed', 'true');
  await expect(view.getByTestId('play')).toHaveAttribute('aria-pressed', 'false', { timeout: 10_000 });
  await expect(first).toBeFocused();

  // Delete on window 2: window 3 takes its place and the focus.
  const third = before[2]!;
  await page.keyboard.press('Tab');
  await expect(view.getByRole('slider', { name: /^Window 2:/ })).toBeFocused();
  await page.keyboard.press('Delete');
  await expect(split.getByTestId('detected-count')).toHaveAttribute('data-count', '3');
  const second = view.getByRole('slider', { name: /^Window 2:/ });
  await expect(second).toBeFocused();
  const thirdStart = await startOf(second);
  expect(thirdStart).toBeCloseTo(third.startMs, -1);
  // Backspace on the last window: the focus goes back to the one before it.
  await page.keyboard.press('Tab');
  await expect(view.getByRole('slider', { name: /^Window 3:/ })).toBeFocused();
  await page.keyboard.press('Backspace');
  await expect(split.getByTestId('detected-count')).toHaveAttribute('data-count', '2');
  await expect(second).toBeFocused();
  await page.keyboard.press('Shift+ArrowLeft');
  await expect.poll(() => startOf(second)).toBeCloseTo(thirdStart - 100, 6);

  // Zoomed in (the view's keys still work from a window), a window out of view is panned into
  // it when it takes focus.
  await page.keyboard.press('+');
  await page.keyboard.press('+');
  await expect(view.getByTestId('view-range')).not.toContainText('0.00–6.31');
  await expect(view.getByTestId('view-range')).not.toContainText('0.01–');
  await page.keyboard.press('Shift+Tab');
  await expect(first).toBeFocused();
  await expect(view.getByTestId('view-range')).toContainText('0.01–');

  // Split what is shown: back to the button, Enter.
  const kept = await Promise.all([first, second].map(startOf));
  expect(kept[0]).toBeCloseTo(10, 6);
  await tabTo(page, split.getByTestId('split-detected'), 'Shift+Tab');
  await page.keyboard.press('Enter');
  await expect(view.getByTestId('review-status')).toHaveText('Split into 2 new samples; the original stays.', { timeout: 20_000 });

  // The new samples are exactly the moved windows (to one audio frame).
  const r = await runCli(['samples', 'list', '--json', '--data-dir', shell.dataDir]);
  expect(r.code, r.stderr).toBe(0);
  const made = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { derived_by?: string; window_ms?: [number, number]; length_ms: number });
  const cut = made.filter((s) => s.derived_by === 'split').map((s) => s.window_ms!).sort((a, b) => a[0] - b[0]);
  expect(cut).toHaveLength(2);
  cut.forEach(([from, to], i) => {
    expect(Math.abs(from - kept[i]!)).toBeLessThan(1000 / take.rate);
    expect(to - from).toBeCloseTo(1000, 0);
  });
  expect(pageErrors).toEqual([]);
});
