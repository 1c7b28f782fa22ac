import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Cleanups } from '../support/cleanups.js';
import { startServe } from '../support/cli.js';
import { BOARDS_UDEV, fakeUdevadm } from '../support/udev/fake-udevadm.js';
import { expect, test } from './fixtures.js';

test('the device list names each board by its USB id, listed through serialport\'s udev parser', async ({ page }) => {
  const cleanups: Cleanups = [];
  try {
    // The app's own serve, with a udevadm that prints a recorded database of real boards.
    const env = await fakeUdevadm(cleanups, BOARDS_UDEV);
    const { url, child } = await startServe(['--port', '0', '--data-dir', join(await mkdtemp(join(tmpdir(), 'cd-e2e-boards-')), 'data')], { env });
    cleanups.push(() => child.kill('SIGTERM'));
    await page.goto(url);
    const entry = (path: string) => page.getByTestId('device-list').locator(`[data-source-id="serial:${path}"]`);
    await expect(entry('/dev/ttyACM0').getByTestId('device-name')).toHaveText('Arduino Nano 33 BLE');
    await expect(entry('/dev/ttyACM0')).toContainText('Arduino (/dev/ttyACM0) · S/N 8D1C4F1A5E3B2C41');
    await expect(entry('/dev/ttyACM1').getByTestId('device-name')).toHaveText('Nordic DK (SEGGER J-Link OB)');
    await expect(entry('/dev/ttyUSB1').getByTestId('device-name')).toHaveText('CH340 USB–serial bridge');
    // No USB id, no board name: the system's own name for the port.
    await expect(entry('/dev/ttyS0').getByTestId('device-name')).toHaveText('Serial port (/dev/ttyS0)');
  } finally {
    for (const c of cleanups.splice(0).reverse()) await c();
  }
});
