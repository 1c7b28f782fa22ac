import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { runCli, startServe } from '../support/cli.js';

// The index is rebuilt by the core at start (test/integration/index-rebuild.test.ts covers the
// cases); this shows the person is told, once, in the page — not only in a log they never read.
test('a corrupt samples.db is rebuilt at start and the page says so once, with the sample back', async ({ page }) => {
  const dataDir = join(await mkdtemp(join(tmpdir(), 'cd-e2e-rebuild-')), 'data');
  await mkdir(dataDir, { recursive: true });
  await writeFile(join(dataDir, 'settings.json'), JSON.stringify({ qualityHold: 'off' }));
  const csv = join(dataDir, '..', 'wave.01.csv');
  await writeFile(csv, 'timestamp,accX,accY\n' + Array.from({ length: 50 }, (_, i) => `${i * 10},${Math.sin(i / 5).toFixed(3)},${(i % 7) / 7}`).join('\n') + '\n');
  const imported = await runCli(['samples', 'import', csv, '--label', 'wave', '--data-dir', dataDir]);
  expect(imported.code, imported.stderr).toBe(0);
  // Garbage where SQLite's header should be: the file is unreadable as a database.
  await writeFile(join(dataDir, 'samples.db'), Buffer.alloc(8192, 0x5a));

  const first = await startServe(['--port', '0', '--data-dir', dataDir]);
  try {
    await page.goto(first.url);
    const notice = page.locator('.notices .notice.warning');
    await expect(notice).toContainText('The sample index was lost');
    await expect(notice).toContainText('No sample file was deleted.');
    await expect(notice).toHaveAttribute('role', 'alert');
    await page.keyboard.press('Alt+2');
    await expect(page.getByTestId('sample-table').locator('tbody tr').filter({ hasText: 'wave' })).toHaveCount(1);
    await notice.getByRole('button', { name: 'Dismiss' }).click();
    await expect(notice).toHaveCount(0);
  } finally {
    first.child.kill('SIGTERM');
    await new Promise((r) => first.child.once('exit', r));
  }
  expect((await readdir(dataDir)).some((f) => f.startsWith('samples.db.corrupt-'))).toBe(true);

  // The next start found a healthy index: nothing to say.
  const second = await startServe(['--port', '0', '--data-dir', dataDir]);
  try {
    await page.goto(second.url);
    await page.keyboard.press('Alt+2');
    await expect(page.getByTestId('sample-table').locator('tbody tr').filter({ hasText: 'wave' })).toHaveCount(1);
    await expect(page.locator('.notices .notice.warning')).toHaveCount(0);
  } finally {
    second.child.kill('SIGTERM');
  }
});
