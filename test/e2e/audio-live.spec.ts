import { playTone, testPulseFromEnv, type PlayingTone } from '../support/audio/pulse.mjs';
import { openView } from './app-page.js';
import { expect, test } from './fixtures.js';

// The browser shell with the real virtual microphone: test/env.sh runs a PulseAudio server whose
// default source is a null sink's monitor; a 1 kHz tone is played into the sink with pacat.
let tone: PlayingTone | null = null;
test.beforeEach(() => {
  const server = testPulseFromEnv();
  tone = playTone({ env: server.env, sink: server.sink, tones: [{ freq: 1000, amp: 0.5 }] });
});
test.afterEach(async () => {
  await tone?.stop();
});

test('the virtual microphone is listed, its meter moves, and 2 s recorded with a label become a WAV sample', async ({ page, shell }, testInfo) => {
  await page.goto(shell.url);
  const mic = page.getByTestId('device-list').locator('[data-source-id="audio:default"]');
  await expect(mic).toHaveAttribute('data-kind', 'audio');
  await expect(mic).toContainText('System default input');
  await mic.click();

  // Level reports arrive (batched) and show the tone: a 0.5 sine is −9 dBFS RMS.
  const live = page.getByTestId('audio-live');
  await expect.poll(async () => Number(await live.getAttribute('data-reports')), { timeout: 15_000 }).toBeGreaterThan(20);
  await expect.poll(async () => Number(await page.getByTestId('audio-meter').getAttribute('data-rms')), { timeout: 10_000 }).toBeGreaterThan(-12);
  await expect(page.getByTestId('audio-rms')).toContainText('dBFS');
  await expect(page.getByTestId('audio-settings').getByLabel('Sample rate')).toHaveValue('16000');
  await expect(page.getByTestId('audio-clipping')).toHaveCount(0);
  await expect(page.getByTestId('audio-silent')).toHaveCount(0);
  // The microphone sends the page levels, never its samples.
  await expect(page.getByTestId('live-plot')).toHaveCount(0);

  const bar = page.getByTestId('record-bar');
  await bar.getByLabel('Label').fill('hum');
  await bar.getByLabel('Length (s)').fill('2');
  await page.locator('body').click({ position: { x: 5, y: 500 } }); // focus away from the inputs
  await page.keyboard.press('Space');
  await expect(page.getByTestId('recording-indicator')).toContainText('REC');
  await page.screenshot({ path: testInfo.outputPath('audio-live.png') });
  await testInfo.attach('audio-live', { path: testInfo.outputPath('audio-live.png'), contentType: 'image/png' });
  await expect(page.getByTestId('recording-saved')).toContainText('Saved 1 sample', { timeout: 15_000 });

  await openView(page, 'Samples');
  const row = page.getByRole('row', { name: /hum\.[0-9a-f]{8}\.wav/ });
  await expect(row).toContainText('2.0 s');
  await expect(row).toContainText('training');

  // The tone stops: after two quiet seconds the live view says the microphone is silent.
  await openView(page, 'Live');
  await tone?.stop();
  await expect(page.getByTestId('audio-silent')).toBeVisible({ timeout: 15_000 });
  await expect(page.getByTestId('audio-rms')).toContainText('−∞');
});
