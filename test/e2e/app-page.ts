import type { Locator, Page, TestInfo } from '@playwright/test';
import { encodeCbor, sensorDoc } from '../support/ingestion-server/fixtures.js';
import type { IngestionServer } from '../support/ingestion-server/server.js';
import { expect } from './fixtures.js';

/** Steps through the UI shared by the e2e specs: they use the app the way a person would. */

/**
 * Opens a board by the path typed into the Live view (the way a person adds a port no list shows);
 * with `rowsOver`, waits until the live view has received more rows than that.
 */
export async function openPort(page: Page, path: string, o: { rowsOver?: number } = {}): Promise<void> {
  await page.getByLabel('Open a port by path').fill(path);
  await page.getByRole('button', { name: 'Open', exact: true }).click();
  if (o.rowsOver !== undefined) {
    await expect.poll(async () => Number(await page.getByTestId('rows-received').textContent()), { timeout: 15_000 }).toBeGreaterThan(o.rowsOver);
  }
}

/** The Live view with the board at `path` open and chosen, once more than `rowsOver` rows came in. */
export async function openBoardLive(page: Page, path: string, rowsOver: number): Promise<void> {
  await openView(page, 'Live');
  await openPort(page, path, { rowsOver });
  await expect(page.locator(`[data-source-id="serial:${path}"]`)).toHaveAttribute('aria-selected', 'true');
}

/** Records one take of the open source from the record bar (Space, as a person starts it) and waits until it is saved. */
export async function recordSavedTake(page: Page, label: string, seconds: number): Promise<void> {
  const bar = page.getByTestId('record-bar');
  await bar.getByLabel('Label').fill(label);
  await bar.getByLabel('Length (s)').fill(String(seconds));
  await page.locator('body').click({ position: { x: 5, y: 300 } });
  await page.keyboard.press('Space');
  await expect(page.getByTestId('recording-saved')).toContainText('Saved 1 sample', { timeout: 15_000 });
}

/** Presses each key after its pause in ms: events marked while a take records, at a person's pace. */
export async function pressAfterPauses(page: Page, steps: Array<[ms: number, key: string]>): Promise<void> {
  for (const [ms, key] of steps) {
    await page.waitForTimeout(ms);
    await page.keyboard.press(key);
  }
}

/** Switches the open port to the platform's AT firmware in its settings; the AT panel once the board answers. */
export async function switchToAtMode(page: Page): Promise<Locator> {
  const settings = page.getByTestId('port-settings');
  await settings.getByLabel('Mode').selectOption('at');
  await settings.getByRole('button', { name: 'Apply' }).click();
  const panel = page.getByTestId('at-panel');
  await expect(panel.getByTestId('at-board')).toContainText('SIMULATED_AT_BOARD', { timeout: 15_000 });
  return panel;
}

export async function openView(page: Page, name: 'Live' | 'Samples' | 'Settings'): Promise<void> {
  // The Samples tab carries a badge ("paused", "3 to upload"), so match the start of the name.
  const tab = page.getByRole('tab', { name: new RegExp(`^${name}`) });
  await tab.click();
  await expect(tab).toHaveAttribute('aria-selected', 'true');
}

/** Points the app at the emulator and stores `apiKey` for its project, all through Settings. */
export async function connectPlatform(page: Page, platform: IngestionServer & { projectId: number }, apiKey: string): Promise<void> {
  await openView(page, 'Settings');
  const form = page.getByTestId('settings');
  await form.getByLabel('Ingestion URL').fill(platform.url);
  await form.getByLabel('Management API URL').fill(platform.managementUrl);
  await form.getByLabel('Project ID').fill(String(platform.projectId));
  await form.getByRole('button', { name: 'Save settings' }).click();
  await expect(form.getByRole('status')).toHaveText('Saved.');
  await expect(page.getByTestId('keys')).toContainText(`For project ${platform.projectId}`);
  await expect(page.getByTestId('api-key-status')).toHaveText('not set');
  await saveKey(page, 'api-key', apiKey);
}

export async function saveKey(page: Page, kind: 'api-key' | 'hmac-key', key: string): Promise<void> {
  const row = page.getByTestId(`key-${kind}`);
  const input = row.locator('input[type=password]');
  await input.fill(key);
  await row.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId(`${kind}-status`)).toHaveText('set');
  // The key went to the keychain; the page keeps no copy.
  await expect(input).toHaveValue('');
}

export interface FileSpec {
  name: string;
  mimeType: string;
  buffer: Buffer;
}

/** A valid CBOR acquisition file; `seed` makes the content unique (the platform refuses duplicates). */
export function sensorFile(name: string, seed: number): FileSpec {
  const values = [0, 1, 2, 3].map((i) => [seed + i, seed - i]);
  return { name, mimeType: 'application/cbor', buffer: encodeCbor(sensorDoc(values)) };
}

/** Through the visible "Add files…" button and the browser's file chooser. */
export async function addFiles(page: Page, files: FileSpec[]): Promise<void> {
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Add files…' }).click();
  await (await chooser).setFiles(files);
}

/**
 * A real drop: a DataTransfer holding File objects, dispatched on the Samples view as the browser
 * would. `zeros` builds a file of that many bytes inside the page, so big files cost no transfer.
 */
export async function dropFiles(page: Page, files: Array<{ name: string; buffer?: Buffer; zeros?: number }>): Promise<void> {
  const list = files.map((f) => ({ name: f.name, bytes: f.buffer ? [...f.buffer] : null, zeros: f.zeros ?? 0 }));
  await page.getByTestId('samples-view').evaluate((el, items) => {
    const dt = new DataTransfer();
    for (const f of items) dt.items.add(new File([f.bytes ? new Uint8Array(f.bytes) : new Uint8Array(f.zeros)], f.name));
    for (const type of ['dragenter', 'dragover', 'drop']) el.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, list);
}

export async function screenshot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const path = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path, fullPage: true });
  await testInfo.attach(name, { path, contentType: 'image/png' });
}
