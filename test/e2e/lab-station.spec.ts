import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { startServe } from '../support/cli.js';
import { startIngestionServer } from '../support/ingestion-server/server.js';
import { openView, saveKey, screenshot } from './app-page.js';
import { expect, test } from './fixtures.js';

/**
 * A lab station used from a laptop's browser: `serve --self-signed` over HTTPS with Chromium, and
 * `serve` on a machine without a keychain taking its API key from the environment.
 */

// The self-signed certificate cannot be verified by the browser: the person compares its
// fingerprint with the printed one instead, as this spec does through the DevTools protocol.
test.use({ ignoreHTTPSErrors: true });

/** A station's data folder and a platform for a project of its own, with a key made for this test. */
async function stationAndPlatform(keyKind: string) {
  const dataDir = await stationDir();
  const projectId = 1000 + Math.floor(Math.random() * 1_000_000);
  const apiKey = `ei_${keyKind}_${Date.now()}_${Math.floor(Math.random() * 1e9)}`;
  const platform = await startIngestionServer({ projectId, apiKeys: [apiKey] });
  return { dataDir, projectId, apiKey, platform };
}

async function stationDir(): Promise<string> {
  const dataDir = join(await mkdtemp(join(tmpdir(), 'cd-e2e-station-')), 'data');
  await mkdir(dataDir, { recursive: true });
  await writeFile(join(dataDir, 'settings.json'), JSON.stringify({ qualityHold: 'off' }));
  return dataDir;
}

async function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exit = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exit;
}

/** Every file under `dir` as text (latin1 keeps every byte), to grep for a secret. */
async function allFiles(dir: string): Promise<string> {
  const parts: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) parts.push(`--- ${join(e.parentPath, e.name)}\n${(await readFile(join(e.parentPath, e.name))).toString('latin1')}`);
  }
  return parts.join('\n');
}

async function fillPlatform(page: import('@playwright/test').Page, platform: { url: string; managementUrl: string }, projectId: number): Promise<void> {
  await openView(page, 'Settings');
  const form = page.getByTestId('settings');
  await form.getByLabel('Ingestion URL').fill(platform.url);
  await form.getByLabel('Management API URL').fill(platform.managementUrl);
  await form.getByLabel('Project ID').fill(String(projectId));
  await form.getByRole('button', { name: 'Save settings' }).click();
  await expect(form.getByRole('status')).toHaveText('Saved.');
  await expect(page.getByTestId('keys')).toContainText(`For project ${projectId}`);
}

test('over HTTPS with the self-signed certificate: printed fingerprint, no token in the address, live data over WSS, a key typed in Settings nowhere on disk', async ({ page }, testInfo) => {
  test.setTimeout(90_000);
  const { dataDir, projectId, apiKey, platform } = await stationAndPlatform('station');
  const serve = await startServe(['--self-signed', '--port', '0', '--data-dir', dataDir]);
  try {
    const token = new URL(serve.url).pathname.split('/')[1]!;
    expect(serve.url).toMatch(/^https:\/\//);
    await expect.poll(() => /SHA-256 fingerprint: ([0-9A-F:]{95})/.exec(serve.stdout())?.[1]).toBeDefined();
    const printed = /SHA-256 fingerprint: ([0-9A-F:]{95})/.exec(serve.stdout())![1]!;

    const sockets: string[] = [];
    page.on('websocket', (ws) => sockets.push(ws.url()));
    const origin = new URL(serve.url).origin;
    // Chromium keeps the certificates of what it loaded while the DevTools network domain is on.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    const response = await page.goto(serve.url);
    expect(response?.status()).toBe(200);

    // Signed in: the token is gone from the address (and so from the history).
    await expect(page).toHaveURL(`${origin}/app/#live`);
    const href = await page.evaluate(() => location.href);
    expect(href).not.toContain(token);
    expect(await page.evaluate(() => document.cookie)).toBe(''); // HttpOnly: the page's scripts cannot read it

    // The certificate Chromium was given is the one whose fingerprint serve printed.
    const { tableNames } = await cdp.send('Network.getCertificate', { origin });
    const fingerprint = createHash('sha256').update(Buffer.from(tableNames[0]!, 'base64')).digest('hex').toUpperCase().match(/../g)!.join(':');
    expect(fingerprint).toBe(printed);
    const security = await response!.securityDetails();
    expect(security?.protocol).toMatch(/^TLS 1\.[23]$/);

    // Live data arrives over WSS, by cookie: no token in the socket's URL either.
    await expect(page.getByTestId('connection')).toHaveText('connected');
    await expect.poll(async () => Number(await page.getByTestId('rows-received').textContent()), { timeout: 10_000 }).toBeGreaterThan(100);
    expect(sockets).toEqual([`${origin.replace('https:', 'wss:')}/app/ws`]);

    // A key typed into Settings goes to the keychain over the encrypted connection.
    await fillPlatform(page, platform, projectId);
    await saveKey(page, 'api-key', apiKey);
    await expect(page.getByTestId('api-key-source')).toHaveText('Stored in the system keychain.');
    await screenshot(page, testInfo, 'https-settings');

    // Plain HTTP to the HTTPS port gets nothing.
    await expect(page.context().request.get(serve.url.replace('https:', 'http:'))).rejects.toThrow();
    await stopped(serve.child);

    const disk = await allFiles(dataDir);
    expect(disk).toContain('signed in a browser'); // the log is there…
    expect(disk).not.toContain(apiKey); // …and the key is not, anywhere
    expect(serve.stderr()).not.toContain(apiKey);
    // The token is printed once on stdout and is in no log.
    expect(disk).not.toContain(token);
    expect(serve.stderr()).not.toContain(token);
  } finally {
    await stopped(serve.child);
    await platform.close();
  }
});

test('without a keychain: CAPTURE_DESK_API_KEY is used from memory, a take recorded on the page is uploaded, the key is in no file', async ({ page }, testInfo) => {
  test.setTimeout(90_000);
  const { dataDir, projectId, apiKey, platform } = await stationAndPlatform('envkey');
  // No D-Bus session: nothing provides the Secret Service.
  const serve = await startServe(['--port', '0', '--data-dir', dataDir], { env: { CAPTURE_DESK_API_KEY: apiKey, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/no-session-bus' } });
  try {
    await page.goto(serve.url);
    await fillPlatform(page, platform, projectId);
    await expect(page.getByTestId('api-key-status')).toHaveText('set');
    await expect(page.getByTestId('api-key-source')).toHaveText('From the environment (CAPTURE_DESK_API_KEY), not stored: held in memory until serve stops.');
    // The HMAC key would live in the keychain, which is not there: said, and its row is blocked.
    await expect(page.getByTestId('keychain-problem')).toContainText('D-Bus');
    await expect(page.getByTestId('key-hmac-key').locator('input[type=password]')).toBeDisabled();
    await expect(page.getByTestId('key-api-key').locator('input[type=password]')).toBeEnabled();
    await screenshot(page, testInfo, 'no-keychain-settings');

    await openView(page, 'Live');
    await expect.poll(async () => Number(await page.getByTestId('rows-received').textContent()), { timeout: 10_000 }).toBeGreaterThan(50);
    const bar = page.getByTestId('record-bar');
    await bar.getByLabel('Label', { exact: true }).fill('station');
    await bar.getByLabel('Length (s)').fill('1');
    await expect(bar.getByLabel('Upload when saved')).toBeChecked();
    await page.locator('body').click({ position: { x: 5, y: 400 } }); // keys go to the page, not a field
    await page.keyboard.press('Space');
    await expect(page.getByTestId('recording-saved')).toContainText('Saved 1 sample', { timeout: 10_000 });
    await expect.poll(() => platform.samples.length, { timeout: 20_000 }).toBe(1);
    expect(platform.samples[0]).toMatchObject({ label: 'station' });
    expect(platform.requests.some((r) => r.headers['x-api-key'] === apiKey)).toBe(true);
    await stopped(serve.child);

    expect(await allFiles(dataDir)).not.toContain(apiKey);
    expect(serve.stderr() + serve.stdout()).not.toContain(apiKey);
  } finally {
    await stopped(serve.child);
    await platform.close();
  }
});

test('serving other machines over plain HTTP (--insecure-http) says so on the page', async ({ page }) => {
  const dataDir = await stationDir();
  const serve = await startServe(['--host', '0.0.0.0', '--insecure-http', '--port', '0', '--data-dir', dataDir]);
  try {
    await page.goto(serve.url);
    await expect(page.getByTestId('insecure-http')).toHaveText('not encrypted');
    await expect(page.getByRole('alert').filter({ hasText: 'Not encrypted' })).toContainText('--self-signed');
    expect(serve.stderr()).toContain('serving other machines over plain HTTP');
  } finally {
    await stopped(serve.child);
  }
});
