import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from '@playwright/test';
import { decodeAcquisition, verifyAcquisitionSignature } from '../../src-main/core/samples/formats/acquisition.js';
import { playTone, testPulseFromEnv } from '../support/audio/pulse.mjs';
import { AT_BOARD, LINE_BOARD } from '../support/boards/board-on-pty.js';
import { startRemoteManagement, type RemoteMgmtServer } from '../support/remote-mgmt/server.js';
import type { IngestionServer } from '../support/ingestion-server/server.js';
import { connectPlatform, openView, saveKey, screenshot, openPort } from './app-page.js';
import { expect, test } from './fixtures.js';

// The platform records from this laptop: a source switched on in the device list becomes a
// platform device on the remote-management emulator; start-sampling on the management API is
// recorded here, kept as a local sample and uploaded once.

// Written on every run; the README's copy (resources/readme/) is refreshed from it by hand, as for the other pictures.
const README_PICTURE = fileURLToPath(new URL('../../test-results/remote-device-list.png', import.meta.url));
const API_KEY = 'ei_test_key';

type Platform = IngestionServer & { projectId: number };

/** The emulator's key, project and the remote-management URL, all through Settings. */
async function pointAtPlatform(page: Page, platform: Platform, rm: RemoteMgmtServer): Promise<void> {
  await connectPlatform(page, platform, API_KEY);
  const form = page.getByTestId('settings');
  const field = form.getByLabel('Remote-management URL');
  // Empty: derived from the ingestion URL (the emulator's host, port 4802).
  await expect(field).toHaveAttribute('placeholder', /^ws:\/\/127\.0\.0\.1:4802$/);
  await field.fill('http://not-a-websocket');
  await form.getByRole('button', { name: 'Save settings' }).click();
  await expect(form.getByRole('alert')).toContainText('ws:// or wss://');
  await field.fill(rm.url);
  await form.getByRole('button', { name: 'Save settings' }).click();
  await expect(form.getByRole('status')).toHaveText('Saved.');
  await openView(page, 'Live');
}

/** Every text the row's state line showed, as the page saw it (a reconnect can be brief). */
/** Keyboard only: focus the row's "Connect to platform" switch, press Space, wait until it is online. */
async function connectByKeyboard(page: Page, row: Locator): Promise<void> {
  const toggle = row.getByRole('switch', { name: 'Connect to platform' });
  await expect(toggle).not.toBeChecked();
  await toggle.focus();
  await page.keyboard.press('Space');
  await expect(toggle).toBeChecked();
  await expect(row.getByTestId('remote-state')).toHaveText('Online', { timeout: 20_000 });
}

async function recordStates(row: Locator): Promise<() => Promise<string[]>> {
  await row.evaluate((el) => {
    const seen: string[] = [];
    (el as HTMLElement & { seen?: string[] }).seen = seen;
    const note = () => {
      const t = el.querySelector('[data-testid="remote-state"]')?.textContent?.trim();
      if (t && seen.at(-1) !== t) seen.push(t);
    };
    new MutationObserver(note).observe(el, { subtree: true, childList: true, characterData: true });
    note();
  });
  return () => row.evaluate((el) => [...((el as HTMLElement & { seen?: string[] }).seen ?? [])]);
}

async function startSampling(platform: Platform, deviceId: string, body: Record<string, unknown>): Promise<{ success: boolean; error?: string }> {
  const res = await fetch(`${platform.managementUrl}/api/${platform.projectId}/device/${encodeURIComponent(deviceId)}/start-sampling`, {
    method: 'POST', headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  return (await res.json()) as { success: boolean; error?: string };
}

async function platformDevices(platform: Platform): Promise<Array<{ deviceId: string; name: string; remote_mgmt_connected: boolean }>> {
  const res = await fetch(`${platform.managementUrl}/api/${platform.projectId}/devices`, { headers: { 'x-api-key': API_KEY } });
  return ((await res.json()) as { devices: Array<{ deviceId: string; name: string; remote_mgmt_connected: boolean }> }).devices;
}

/** The progress a device sent for its latest request, in order (the spec's names). */
function progressOf(rm: RemoteMgmtServer, deviceId: string): string[] {
  const names = ['sample', 'sampleStarted', 'sampleReading', 'sampleProcessing', 'sampleUploading', 'sampleFinished'];
  return rm.messages
    .filter((m) => m.dir === 'in' && m.deviceId === deviceId)
    .flatMap((m) => names.filter((n) => n in m.message).map((n) => (n === 'sample' ? `sample:${String(m.message['sample'])}` : n)));
}

test('a numeric board connected from the device list: online, recorded from the platform, renamed there, and back after a dropped connection', async ({ page, shell, platform, board }, testInfo) => {
  test.setTimeout(120_000);
  const rm = await startRemoteManagement({ ingestion: platform });
  const { pty } = await board(LINE_BOARD, ['--rate', '100', '--axes', '3']);
  try {
    await page.goto(shell.url);
    await pointAtPlatform(page, platform, rm);
    await openPort(page, pty.hostPath, { rowsOver: 100 });

    const sourceId = `serial:${pty.hostPath}`;
    const row = page.locator(`[data-testid="remote-device"][data-remote-source="${sourceId}"]`);
    // The simulator's data is not real: it gets no switch.
    await expect(page.locator('[data-testid="remote-device"][data-remote-source="simulated:imu"]')).toHaveCount(0);
    await connectByKeyboard(page, row);
    await expect.poll(() => rm.connected().length).toBe(1);
    const deviceId = rm.connected()[0]!.deviceId;
    // Not renamed yet: the row names the device by its id, as the platform does.
    await expect(row.getByTestId('remote-name')).toHaveText(deviceId);
    expect(rm.connected()[0]!.sensors[0]!.name).toMatch(/^Sensor with 3 axes/);

    // The platform asks for 2 s of "wave": the live view says so while it records. The row's
    // state is recorded as it changes: on a loaded machine the 2 s can be over by the time the
    // take's words have been checked (load run 9).
    const recorded = await recordStates(row);
    const answer = await startSampling(platform, deviceId, { label: 'wave', lengthMs: 2000, category: 'training', intervalMs: 10, collectedSampleCount: 3, targetSampleCount: 10 });
    expect(answer).toMatchObject({ success: true });
    const take = page.getByTestId('platform-take');
    await expect(take).toContainText('Recording for the platform: wave, 2 s');
    await expect(take.getByTestId('platform-take-hint')).toHaveText('3 of 10 for this label');
    await expect.poll(recorded).toContain('Recording for the platform');
    await screenshot(page, testInfo, 'remote-recording');
    // Finished only after the upload; the row keeps the outcome.
    await rm.waitFor((m) => m.dir === 'in' && m.deviceId === deviceId && m.message['sampleFinished'] === true, 20_000);
    expect(progressOf(rm, deviceId)).toEqual(['sample:true', 'sampleStarted', 'sampleProcessing', 'sampleUploading', 'sampleFinished']);
    await expect(take).toHaveCount(0);
    await expect(row.getByTestId('remote-request')).toHaveText('Last platform request (wave, 2 s): finished, uploaded to the platform');
    await expect(row.getByTestId('remote-state')).toHaveText('Online');
    expect(platform.samples.filter((s) => s.label === 'wave')).toHaveLength(1);
    expect(platform.samples[0]).toMatchObject({ label: 'wave', category: 'training' });

    // Rename: Escape cancels, Enter confirms; the platform has the name.
    await row.getByRole('button', { name: 'Rename' }).click();
    const nameField = row.getByLabel(`New name for ${deviceId}`);
    await expect(nameField).toBeFocused();
    await nameField.fill('never sent');
    await nameField.press('Escape');
    await expect(nameField).toHaveCount(0);
    await expect(row.getByRole('button', { name: 'Rename' })).toBeFocused();
    await page.keyboard.press('Enter');
    await row.getByLabel(`New name for ${deviceId}`).fill('bench board');
    await row.getByLabel(`New name for ${deviceId}`).press('Enter');
    await expect(row.getByTestId('remote-name')).toHaveText('bench board');
    await expect.poll(async () => (await platformDevices(platform)).find((d) => d.deviceId === deviceId)?.name).toBe('bench board');

    // The picture for the README: the device list with a connected, renamed board (test-results/).
    await mkdir(dirname(README_PICTURE), { recursive: true });
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.locator('#view-live .side').screenshot({ path: README_PICTURE });

    // The emulator drops the socket: the row counts down to the reconnect, then is online again.
    const states = await recordStates(row);
    rm.drop(deviceId);
    await expect.poll(states, { timeout: 10_000 }).toContainEqual(expect.stringMatching(/^Reconnecting in \d+ s$/));
    await expect(row.getByTestId('remote-state')).toHaveText('Online', { timeout: 15_000 });
    await expect.poll(() => rm.isConnected(deviceId)).toBe(true);
    expect(await states()).toEqual(expect.arrayContaining(['Online', 'Reconnecting in 1 s']));

    // The sample is a normal local sample, saying who asked for it.
    await openView(page, 'Samples');
    const sampleRow = page.getByRole('row', { name: /wave\./ });
    await expect(sampleRow).toContainText('training');
    await expect(sampleRow).toContainText(`requested by the platform (remote management, device ${deviceId})`);
    await expect(sampleRow).toContainText('uploaded');
  } finally {
    await rm.close();
  }
});

test('a board with the platform firmware connected from the device list: its own id, sampled with its AT commands for the platform, the bytes it signed uploaded once', async ({ page, shell, platform, board }, testInfo) => {
  test.setTimeout(120_000);
  // The board names itself (AT+CONFIG?): an id and type of its own, not the emulator's defaults.
  const BOARD_ID = 'AB:CD:EF:01:23:45';
  const HMAC_KEY = 'e2e-at-board-hmac-key-3b9d0c6e71';
  // The project checks signatures with this key; the app hands the same key to the board.
  platform.setFaults({ hmacKey: HMAC_KEY });
  const rm = await startRemoteManagement({ ingestion: platform });
  // Buffer storage: the sample is read back in 32 KB chunks, so the platform hears reading progress.
  // What the board says it did, one JSON line each: above all {"event":"sample","base64"} (the exact bytes it stored).
  const { pty, events: boardEvents } = await board(AT_BOARD, [
    '--at-version', '1.6.0', '--storage', 'buffer', '--time-scale', '0.05', '--device-id', BOARD_ID, '--device-type', 'E2E_AT_BOARD',
  ]);
  try {
    await expect.poll(() => boardEvents.some((e) => e.event === 'ready'), { timeout: 10_000 }).toBe(true);
    await page.goto(shell.url);
    await pointAtPlatform(page, platform, rm);
    await openView(page, 'Settings');
    await saveKey(page, 'hmac-key', HMAC_KEY);
    await openView(page, 'Live');

    // Added by path, then switched to the official firmware in the port's settings.
    await openPort(page, pty.hostPath);
    const settings = page.getByTestId('port-settings');
    await settings.getByLabel('Mode').selectOption({ label: 'platform firmware (AT)' });
    await settings.getByRole('button', { name: 'Apply' }).click();
    await expect(page.getByTestId('at-panel').getByTestId('at-board')).toContainText('E2E_AT_BOARD', { timeout: 15_000 });

    const row = page.locator(`[data-testid="remote-device"][data-remote-source="serial:${pty.hostPath}"]`);
    await connectByKeyboard(page, row);
    // The board's own id from AT+CONFIG?, in the row and on the platform, with its type and sensors.
    await expect(row.getByTestId('remote-name')).toHaveText(BOARD_ID);
    await expect.poll(() => rm.connected().length).toBe(1);
    expect(rm.connected()[0]).toMatchObject({ deviceId: BOARD_ID, deviceType: 'E2E_AT_BOARD' });
    expect(rm.connected()[0]!.sensors.map((s) => s.name)).toEqual(['Built-in accelerometer', 'Built-in microphone']);
    await expect.poll(async () => (await platformDevices(platform)).find((d) => d.deviceId === BOARD_ID)?.remote_mgmt_connected).toBe(true);

    // Uploads are answered 400 ms late: sampleFinished must wait for the answer. The log calls
    // back synchronously, so this sees the upload requests as they were when sampleFinished came.
    platform.setFaults({ delayMs: 400 });
    const isUpload = (path: string) => /^\/api\/(training|testing|validation)\/(data|files)$/.test(path);
    let uploadsAtFinish: Array<{ path: string; status: number }> = [];
    const finished = rm.waitFor((m) => {
      if (m.dir !== 'in' || m.deviceId !== BOARD_ID || m.message['sampleFinished'] !== true) return false;
      uploadsAtFinish = platform.requests.filter((r) => isUpload(r.path)).map((r) => ({ path: r.path, status: r.status }));
      return true;
    }, 60_000);
    const states = await recordStates(row);

    // 20 s of accelerometer at 100 Hz: 2,000 rows on the board (a second at its time scale), more than one 32 KB read.
    const answer = await startSampling(platform, BOARD_ID, { label: 'knock', lengthMs: 20_000, category: 'testing', intervalMs: 10, sensor: 'Built-in accelerometer' });
    expect(answer).toMatchObject({ success: true });
    await finished;
    expect(uploadsAtFinish).toEqual([{ path: expect.stringMatching(/^\/api\/testing\/(data|files)$/), status: 200 }]);

    // Progress in the spec's order: the read-back's percentages (rising, to 100) before sampleProcessing.
    const progress = progressOf(rm, BOARD_ID);
    expect(progress.filter((t, i) => !(t === 'sampleReading' && progress[i - 1] === 'sampleReading')))
      .toEqual(['sample:true', 'sampleStarted', 'sampleReading', 'sampleProcessing', 'sampleUploading', 'sampleFinished']);
    const percents = rm.messages
      .filter((m) => m.dir === 'in' && m.deviceId === BOARD_ID && m.message['sampleReading'] === true)
      .map((m) => m.message['progressPercentage'] as number);
    expect(percents.length).toBeGreaterThanOrEqual(3);
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    expect(percents.every((x) => x >= 0 && x <= 100)).toBe(true);
    expect(percents.at(-1)).toBe(100);
    expect(await states()).toContain('Recording for the platform');
    await expect(row.getByTestId('remote-request')).toHaveText('Last platform request (knock, 20 s): finished, uploaded to the platform');
    await expect(row.getByTestId('remote-state')).toHaveText('Online');
    await screenshot(page, testInfo, 'remote-at-board');

    // On the platform: once, in testing, labelled, and byte for byte what the board stored and signed.
    const onBoard = boardEvents.filter((e) => e.event === 'sample');
    expect(onBoard).toHaveLength(1);
    const boardBytes = Buffer.from(onBoard[0]!.base64 as string, 'base64');
    expect(platform.samples).toHaveLength(1);
    const stored = platform.samples[0]!;
    expect(stored).toMatchObject({ category: 'testing', label: 'knock' });
    expect(stored.bytes.equals(boardBytes)).toBe(true);
    expect(verifyAcquisitionSignature(stored.bytes, HMAC_KEY)).toBe(true);
    const payload = decodeAcquisition(stored.bytes, 'cbor').payload;
    expect(payload).toMatchObject({ device_name: BOARD_ID, device_type: 'E2E_AT_BOARD', interval_ms: 10 });
    expect(payload.values).toHaveLength(2000);

    // The samples table has it, saying who asked; still one sample on the platform.
    await openView(page, 'Samples');
    const sampleRow = page.getByRole('row', { name: /knock\./ });
    await expect(sampleRow).toHaveCount(1);
    await expect(sampleRow).toContainText('testing');
    await expect(sampleRow).toContainText(`requested by the platform (remote management, device ${BOARD_ID})`);
    await expect(sampleRow).toContainText('uploaded');
    expect(platform.samples).toHaveLength(1);
  } finally {
    // What the board did (its commands, the sample it stored), for a failure's report; the bytes as their length.
    await testInfo.attach('at-board-events', { contentType: 'application/json', body: JSON.stringify(boardEvents.map((e) => ('base64' in e ? { ...e, base64: `${String(e.base64).length} chars` } : e)), null, 1) });
    await rm.close();
  }
});

test('the virtual microphone connected to the platform records what start-sampling asks for, as a WAV uploaded once', async ({ page, shell, platform }, testInfo) => {
  test.setTimeout(90_000);
  const server = testPulseFromEnv();
  const tone = playTone({ env: server.env, sink: server.sink, tones: [{ freq: 440, amp: 0.4 }] });
  const rm = await startRemoteManagement({ ingestion: platform });
  try {
    await page.goto(shell.url);
    await pointAtPlatform(page, platform, rm);
    const row = page.locator('[data-testid="remote-device"][data-remote-source="audio:default"]');
    await row.getByRole('switch', { name: 'Connect to platform' }).check();
    await expect(row.getByTestId('remote-state')).toHaveText('Online', { timeout: 20_000 });
    await expect.poll(() => rm.connected().length).toBe(1);
    const device = rm.connected()[0]!;
    expect(device.sensors.map((s) => s.name)).toEqual(['Microphone']);

    const answer = await startSampling(platform, device.deviceId, { label: 'hum', lengthMs: 1000, category: 'testing', intervalMs: 0.0625, sensor: 'Microphone' });
    expect(answer).toMatchObject({ success: true });
    await expect(page.getByTestId('platform-take')).toContainText('Recording for the platform: hum, 1 s');
    await rm.waitFor((m) => m.dir === 'in' && m.deviceId === device.deviceId && m.message['sampleFinished'] === true, 20_000);
    await expect(row.getByTestId('remote-request')).toContainText('finished, uploaded to the platform');
    await screenshot(page, testInfo, 'remote-microphone');
    const uploaded = platform.samples.filter((s) => s.label === 'hum');
    expect(uploaded).toHaveLength(1);
    expect(uploaded[0]).toMatchObject({ category: 'testing' });

    await openView(page, 'Samples');
    const sampleRow = page.getByRole('row', { name: /hum\.[0-9a-f]{8}\.wav/ });
    await expect(sampleRow).toContainText('testing');
    await expect(sampleRow).toContainText('requested by the platform');

    // Switched off: the platform no longer sees it.
    await openView(page, 'Live');
    await row.getByRole('switch', { name: 'Connect to platform' }).uncheck();
    await expect(row.getByTestId('remote-state')).toHaveCount(0);
    await expect.poll(() => rm.isConnected(device.deviceId)).toBe(false);
  } finally {
    await tone.stop();
    await rm.close();
  }
});

test('a refused hello and a failed rename are said in the row, in words; a new key connects the device', async ({ page, shell, platform }) => {
  const rm = await startRemoteManagement({ ingestion: platform, faults: { refuseHellos: true } });
  try {
    await page.goto(shell.url);
    await pointAtPlatform(page, platform, rm);
    const row = page.locator('[data-testid="remote-device"][data-remote-source="audio:default"]');
    await row.getByRole('switch', { name: 'Connect to platform' }).check();
    await expect(row.getByTestId('remote-state')).toHaveText(/^Refused: The platform refused this device \(.+\)\. Check the project's API key in Settings/, { timeout: 20_000 });
    expect(rm.connected()).toHaveLength(0);

    // The platform has never seen this device, so it cannot be renamed there: the row says why and keeps the field.
    await row.getByRole('button', { name: 'Rename' }).click();
    const field = row.getByRole('textbox');
    await field.fill('desk mic');
    await field.press('Enter');
    await expect(row.getByTestId('remote-error')).toContainText('Device not found');
    await expect(field).toHaveValue('desk mic');
    await field.press('Escape');
    await row.getByRole('button', { name: 'Dismiss' }).click();
    await expect(row.getByTestId('remote-error')).toHaveCount(0);

    // The key is fixed: saving it again makes the refused device try at once.
    rm.setFaults({ refuseHellos: false });
    await openView(page, 'Settings');
    await saveKey(page, 'api-key', API_KEY);
    await openView(page, 'Live');
    await expect(row.getByTestId('remote-state')).toHaveText('Online', { timeout: 20_000 });
    await expect.poll(() => rm.connected().length).toBe(1);
  } finally {
    await rm.close();
  }
});
