import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveInJackWedge } from '../support/audio/in-jack-wedge.js';
import { playTone, testPulseFromEnv } from '../support/audio/pulse.mjs';
import { expect, test } from './fixtures.js';

// Issue 30 in the UI: the browser shell runs in a private /dev/shm whose JACK metadata lock is
// stale (test/support/audio/jack-wedge.sh) and is told to use JACK. The device list says what is
// stuck and what to do, the simulator is there meanwhile, and the microphone comes (through ALSA).
test('a stuck JACK lock is named above the device list; the simulator and then the microphone are usable', async ({ page }) => {
  const server = testPulseFromEnv();
  const tone = playTone({ env: server.env, sink: server.sink, tones: [{ freq: 1000, amp: 0.5 }] });
  const dataDir = join(await mkdtemp(join(tmpdir(), 'cd-e2e-stuck-')), 'data');
  const shell = await serveInJackWedge(['--port', '0', '--data-dir', dataDir], { CAPTURE_DESK_AUDIO_HOST: 'jack' });
  try {
    await page.goto(shell.url);
    const list = page.getByTestId('device-list');
    await expect(list.locator('[data-kind="simulated"]')).toBeVisible({ timeout: 15_000 });
    const problem = page.getByTestId('audio-problem');
    await expect(problem).toContainText(`metadata folder /dev/shm/jack_db-${process.getuid?.() ?? 0}`, { timeout: 20_000 });
    await expect(problem).toContainText('No JACK server is running');
    await expect(problem).toContainText('cleared by a reboot');
    await expect(problem).toHaveAttribute('role', 'alert');
    await expect(list.locator('[data-source-id="audio:default"]')).toBeVisible({ timeout: 20_000 });
  } finally {
    shell.child.kill('SIGKILL');
    await tone.stop();
  }
});
