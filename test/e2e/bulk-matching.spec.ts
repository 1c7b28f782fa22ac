// "All N matching" (issue 22): with a find that matches more than a page, the page is ticked, all
// matching chosen, and bulk actions reach every one of them after a confirmation that states the
// count; what the core did is read back with the CLI (`samples list --json`), not from the table.
import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { runCli } from '../support/cli.js';
import { sensorDoc } from '../support/ingestion-server/fixtures.js';
import { screenshot } from './app-page.js';
import { expect, test } from './fixtures.js';

// Hundreds of samples imported and 500 rows rendered per test: more than the default minute on a
// busy two-core machine.
test.slow();

let seed = 0;

/**
 * `count` small JSON samples per name prefix, added to the data folder by the CLI's import (one
 * process for all: fast, and the serve running on the folder reads them from the index).
 */
async function importSamples(dataDir: string, counts: Record<string, number>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'cd-bulk-seed-'));
  const paths: string[] = [];
  for (const [prefix, count] of Object.entries(counts)) {
    for (let i = 0; i < count; i++) {
      const path = join(dir, `${prefix}.${seed}.json`);
      seed++;
      // Unique content: the same bytes would be found as the same sample.
      await writeFile(path, JSON.stringify(sensorDoc([[seed, 1], [seed, 2], [seed, 3], [seed, 4]])));
      paths.push(path);
    }
  }
  const r = await runCli(['samples', 'import', ...paths, '--data-dir', dataDir]);
  expect(r.code, r.stderr).toBe(0);
}

interface Listed {
  name: string;
  label: string | null;
}

async function listed(dataDir: string): Promise<Listed[]> {
  const r = await runCli(['samples', 'list', '--json', '--data-dir', dataDir]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Listed);
}

/** name prefix → label → how many, e.g. { wave: { gesture: 520 }, idle: { idle: 30 } }. */
async function tally(dataDir: string): Promise<Record<string, Record<string, number>>> {
  const out: Record<string, Record<string, number>> = {};
  for (const s of await listed(dataDir)) {
    const prefix = s.name.split('.')[0]!;
    const by = (out[prefix] ??= {});
    by[s.label ?? '(none)'] = (by[s.label ?? '(none)'] ?? 0) + 1;
  }
  return out;
}

const bulk = (page: Page) => page.getByTestId('bulk-actions');
const rows = (page: Page) => page.getByTestId('sample-table').locator('tbody tr');

/** The Samples view with the search "wave" set from the address, as a bookmark would. */
async function openFound(page: Page, url: string, pageRows: number): Promise<void> {
  await page.goto(`${url}#samples?q=wave`);
  await expect(rows(page)).toHaveCount(pageRows, { timeout: 15_000 });
}

/** Ticks the page, then takes Gmail's offer. */
async function selectAllMatching(page: Page, total: number): Promise<void> {
  await page.getByRole('checkbox', { name: 'Select all samples shown' }).check();
  await expect(bulk(page).getByTestId('selected-count')).toHaveText('500 samples selected');
  await bulk(page).getByRole('button', { name: `Select all ${total.toLocaleString('en-US')} matching` }).click();
  await expect(bulk(page).getByTestId('selected-count')).toHaveText(`All ${total} matching samples selected`);
}

test('label and delete all samples a search matches, not just the page, after a confirmation that says how many', async ({ page, shell }, testInfo) => {
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await importSamples(shell.dataDir, { wave: 520, idle: 30 });
  await openFound(page, shell.url, 500);

  // The offer comes only once the whole page is ticked.
  await rows(page).first().getByRole('checkbox').check();
  await expect(bulk(page).getByTestId('selected-count')).toHaveText('1 sample selected');
  await expect(bulk(page).getByTestId('select-all-matching')).toHaveCount(0);
  await selectAllMatching(page, 520);
  await screenshot(page, testInfo, 'all-matching');
  // "Select only this page" goes back to the ticked rows; the offer is there again.
  await bulk(page).getByRole('button', { name: 'Select only this page' }).click();
  await expect(bulk(page).getByTestId('selected-count')).toHaveText('500 samples selected');
  await bulk(page).getByTestId('select-all-matching').click();
  await expect(bulk(page).getByTestId('selected-count')).toHaveText('All 520 matching samples selected');

  // Set label: the dry run's count is in the question; nothing changes until Confirm.
  await bulk(page).getByLabel('New label').fill('gesture');
  await bulk(page).getByRole('button', { name: 'Set label' }).click();
  await expect(bulk(page).getByTestId('bulk-question')).toHaveText('Set label "gesture" on 520 samples?');
  await screenshot(page, testInfo, 'all-matching-confirm');
  expect(await tally(shell.dataDir)).toEqual({ wave: { wave: 520 }, idle: { idle: 30 } });
  await bulk(page).getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByRole('status').filter({ hasText: '520 samples labelled "gesture".' })).toBeVisible();
  expect(await tally(shell.dataDir)).toEqual({ wave: { gesture: 520 }, idle: { idle: 30 } });
  // The page shows it (one refetch after the core's change event), and all matching still holds.
  await expect(rows(page).locator('td.label', { hasText: 'gesture' })).toHaveCount(500);
  await expect(bulk(page).getByTestId('selected-count')).toHaveText('All 520 matching samples selected');

  // Delete: Cancel changes nothing; the confirmed delete removes exactly the 520.
  await bulk(page).getByRole('button', { name: 'Delete…' }).click();
  await expect(bulk(page).getByTestId('bulk-question')).toContainText('Delete 520 samples? Files captured here are removed');
  await bulk(page).getByRole('button', { name: 'Cancel' }).click();
  await expect(bulk(page).getByTestId('bulk-question')).toHaveCount(0);
  expect((await listed(shell.dataDir)).length).toBe(550);
  await bulk(page).getByRole('button', { name: 'Delete…' }).click();
  await bulk(page).getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(page.getByRole('status').filter({ hasText: '520 samples deleted.' })).toBeVisible();
  expect(await tally(shell.dataDir)).toEqual({ idle: { idle: 30 } });
  await expect(rows(page)).toHaveCount(0);
  await expect(bulk(page)).toHaveCount(0);
  expect(pageErrors).toEqual([]);
});

test('a sample added between the count and the confirm: nothing changes, the bar says why, and looking again counts it', async ({ page, shell }, testInfo) => {
  await importSamples(shell.dataDir, { wave: 505, idle: 5 });
  await openFound(page, shell.url, 500);
  await selectAllMatching(page, 505);
  await bulk(page).getByLabel('New category').selectOption('testing');
  await bulk(page).getByRole('button', { name: 'Set category' }).click();
  await expect(bulk(page).getByTestId('bulk-question')).toHaveText('Set category testing on 505 samples?');

  // Another program adds a matching sample to the folder meanwhile.
  await importSamples(shell.dataDir, { wave: 1 });
  await bulk(page).getByRole('button', { name: 'Confirm' }).click();
  await expect(bulk(page).getByTestId('bulk-stale')).toHaveText(
    'The filter now matches 506 samples, not the 505 you confirmed (samples were added, changed or deleted meanwhile). Nothing was changed: look at the list again and confirm.',
  );
  await screenshot(page, testInfo, 'count-changed');
  const categories = async () => (await runCli(['samples', 'list', '--json', '--data-dir', shell.dataDir])).stdout.split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { category: string }).category);
  expect((await categories()).filter((c) => c === 'testing')).toHaveLength(0);

  await bulk(page).getByRole('button', { name: 'Look again' }).click();
  await expect(bulk(page).getByTestId('bulk-question')).toHaveText('Set category testing on 506 samples?');
  await expect(bulk(page).getByTestId('selected-count')).toHaveText('All 506 matching samples selected');
  await bulk(page).getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByRole('status').filter({ hasText: '506 samples set to testing.' })).toBeVisible();
  const after = await categories();
  expect(after.filter((c) => c === 'testing')).toHaveLength(506);
  expect(after.filter((c) => c === 'training')).toHaveLength(5); // the idle ones
});

test('export all matching writes one file per matching sample, with progress', async ({ page, shell }) => {
  await importSamples(shell.dataDir, { wave: 510, idle: 7 });
  await openFound(page, shell.url, 500);
  await selectAllMatching(page, 510);
  const out = join(await mkdtemp(join(tmpdir(), 'cd-bulk-export-')), 'out');
  await bulk(page).getByRole('button', { name: 'Export…' }).click();
  await bulk(page).getByLabel('Export folder').fill(out);
  await bulk(page).getByRole('button', { name: 'Export 510 samples' }).click();
  await expect(bulk(page).getByTestId('bulk-question')).toHaveText(`Export 510 samples to ${out}?`);
  await bulk(page).getByRole('button', { name: 'Export', exact: true }).click();
  await expect(page.getByRole('status').filter({ hasText: `Exported 510 files with info.labels to ${out}.` })).toBeVisible({ timeout: 30_000 });
  const files = (await readdir(out, { recursive: true })).filter((f) => f.endsWith('.json'));
  expect(files).toHaveLength(510);
  expect(files.every((f) => /wave\.\d+\.json$/.test(f))).toBe(true);
});
