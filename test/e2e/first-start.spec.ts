import { expect, test } from './fixtures.js';

/** Fraction of canvas pixels that are not the plot background: proves something was drawn. */
async function inkedPixels(page: import('@playwright/test').Page): Promise<{ inked: number; hash: number }> {
  return page.evaluate(() => {
    const canvas = document.querySelector('[data-testid=live-plot] canvas') as HTMLCanvasElement | null;
    if (!canvas) return { inked: 0, hash: 0 };
    const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
    let inked = 0;
    let hash = 0;
    for (let i = 0; i < data.length; i += 4) {
      // Series colours are saturated; grid lines and text are grey.
      const [r, g, b] = [data[i]!, data[i + 1]!, data[i + 2]!];
      if (Math.max(r, g, b) - Math.min(r, g, b) > 60 && data[i + 3]! > 0) {
        inked++;
        hash = (hash * 31 + i) | 0;
      }
    }
    return { inked, hash };
  });
}

test('first start shows the simulated sensor streaming into a live plot', async ({ page, shell }, testInfo) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(shell.url);

  const simulated = page.locator('[data-kind=simulated]');
  await expect(simulated).toContainText('Simulated accelerometer');
  await expect(simulated).toContainText('simulated – not real data');
  await expect(simulated).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('simulated-badge')).toBeVisible();
  await expect(page.getByTestId('connection')).toHaveText('connected');

  // Rows keep arriving...
  const rows = page.getByTestId('rows-received');
  await expect.poll(async () => Number(await rows.textContent()), { timeout: 10_000 }).toBeGreaterThan(100);
  const before = Number(await rows.textContent());
  await page.waitForTimeout(1000);
  const after = Number(await rows.textContent());
  expect(after - before).toBeGreaterThan(60); // 100 Hz default

  // ...and are drawn: coloured series pixels exist and change as the stream moves.
  await expect.poll(async () => (await inkedPixels(page)).inked, { timeout: 5000 }).toBeGreaterThan(500);
  const a = await inkedPixels(page);
  await page.waitForTimeout(500);
  const b = await inkedPixels(page);
  expect(b.hash).not.toBe(a.hash);
  await expect(page.locator('.u-legend')).toContainText('accZ');

  await page.screenshot({ path: testInfo.outputPath('first-start.png'), fullPage: true });
  await testInfo.attach('first-start', { path: testInfo.outputPath('first-start.png'), contentType: 'image/png' });
  expect(errors).toEqual([]);
});

test('the bare address without the token shows no data and gives no access', async ({ page, shell }) => {
  const bare = new URL('/', shell.url).href;
  const response = await page.goto(bare);
  expect(response?.status()).toBe(401);
  await expect(page.locator('body')).toContainText('needs its token');
  await expect(page.locator('[data-testid=device-list]')).toHaveCount(0);
  const wsRefused = await page.evaluate(
    (url) =>
      new Promise<boolean>((resolve) => {
        const ws = new WebSocket(url);
        ws.onopen = () => resolve(false);
        ws.onerror = () => resolve(true);
      }),
    bare.replace('http', 'ws') + 'ws',
  );
  expect(wsRefused).toBe(true);
});

test('settings are saved through the core, and a bad URL is explained', async ({ page, shell }) => {
  await page.goto(shell.url);
  await page.getByRole('tab', { name: 'Settings' }).click();
  const form = page.getByTestId('settings');
  await form.getByLabel('Project ID').fill('4242');
  await form.getByLabel('Device name').fill('lab-bench-3');
  await form.getByRole('button', { name: 'Save settings' }).click();
  await expect(form.getByRole('status')).toHaveText('Saved.');

  await page.reload();
  await expect(form.getByLabel('Project ID')).toHaveValue('4242');
  await expect(form.getByLabel('Device name')).toHaveValue('lab-bench-3');

  // Each bad value is said with the field's name as the form shows it, never the code's ("ingestionUrl").
  await form.getByLabel('Ingestion URL').fill('ftp://example');
  await form.getByRole('button', { name: 'Save settings' }).click();
  await expect(form.getByRole('alert')).toHaveText('Ingestion URL must be an http:// or https:// URL (e.g. https://ingestion.edgeimpulse.com); "ftp://example" is not.');
  await form.getByLabel('Ingestion URL').fill('https://ingestion.edgeimpulse.com');
  await form.getByLabel('Management API URL').fill('studio.edgeimpulse.com/v1');
  await form.getByRole('button', { name: 'Save settings' }).click();
  await expect(form.getByRole('alert')).toContainText('Management API URL must be an http:// or https:// URL');
  await form.getByLabel('Management API URL').fill('https://studio.edgeimpulse.com/v1');
  await form.getByLabel('Device name').fill('   ');
  await form.getByRole('button', { name: 'Save settings' }).click();
  await expect(form.getByRole('alert')).toHaveText('Device name must not be empty: it names this computer in the samples it records (e.g. lab-bench-3).');
  await expect(form.getByRole('alert')).not.toContainText('Invalid arguments');
});

test('the device list works from the keyboard', async ({ page, shell }) => {
  await page.goto(shell.url);
  const list = page.getByTestId('device-list');
  await expect(list.locator('[data-kind=simulated]')).toHaveAttribute('aria-selected', 'true');
  await list.focus();
  await page.keyboard.press('End');
  await page.keyboard.press('Home');
  await expect(list.locator('[data-kind=simulated]')).toHaveAttribute('aria-selected', 'true');
});
