import type { Locator, Page } from '@playwright/test';
import { expect } from './fixtures.js';

/**
 * The views that show samples, read the way a person reads them: the samples table, the class
 * balance, the added-files list, the upload queue and the sample view (a drag across its plot).
 * Used by views-follow.spec.ts, the classify specs and the specs that select or split on the plot.
 */

export const tableRow = (page: Page, name: string | RegExp): Locator => page.getByTestId('sample-table').locator('tbody tr', { has: page.locator('td.name', { hasText: name }) });

/** label · category · state of a row in the samples table. */
export async function expectRow(page: Page, name: string | RegExp, label: string, category: string, state: string): Promise<void> {
  const row = tableRow(page, name);
  await expect(row.locator('td.label')).toHaveText(label);
  await expect(row.locator('td').nth(3)).toHaveText(category);
  await expect(row).toHaveAttribute('data-state', state);
}

/** The added-files list's words for a file: "hum · testing · uploaded", or "deleted since". */
export const addedText = (page: Page, name: string): Locator =>
  page.getByTestId('import-files').locator('li', { has: page.locator('.name', { hasText: name }) }).getByTestId('import-file-text');

const cell = (page: Page, label: string, category: string) => page.getByTestId('class-balance').locator(`tr[data-label="${label}"] td[data-category=${category}]`);

/** Samples here not on the platform yet (queued + local) in a class balance cell (0: none shown). */
export async function expectLocal(page: Page, label: string, category: string, n: number): Promise<void> {
  const parts = cell(page, label, category).locator('[data-testid=queued-count], [data-testid=local-count]');
  const sum = async () => (await parts.allTextContents()).reduce((a, t) => a + Number(t.replace(/,/g, '')), 0);
  await expect.poll(sum, { timeout: 10_000 }).toBe(n);
}

/** The platform's count in the class balance (asked again once changes settle). */
export async function expectOnPlatform(page: Page, label: string, category: string, n: number): Promise<void> {
  await expect(cell(page, label, category).getByTestId('platform-count')).toHaveText(String(n), { timeout: 15_000 });
}

export const queueCounts = (page: Page): Locator => page.getByTestId('queue-counts');

/** Ticks exactly these rows of the samples table. */
export async function select(page: Page, names: string[]): Promise<void> {
  const table = page.getByTestId('sample-table');
  await table.focus();
  await page.keyboard.press('Escape');
  for (const n of names) await tableRow(page, n).getByRole('checkbox').check();
}

export const bulk = (page: Page): Locator => page.getByTestId('bulk-actions');

export async function setCategory(page: Page, names: string[], category: string): Promise<void> {
  await select(page, names);
  await bulk(page).getByLabel('New category').selectOption(category);
  await bulk(page).getByRole('button', { name: 'Set category' }).click();
}

export async function setLabel(page: Page, names: string[], label: string): Promise<void> {
  await select(page, names);
  await bulk(page).getByLabel('New label').fill(label);
  await bulk(page).getByRole('button', { name: 'Set label' }).click();
}

export async function remove(page: Page, names: string[]): Promise<void> {
  await select(page, names);
  await bulk(page).getByRole('button', { name: 'Delete…' }).click();
  await bulk(page).getByRole('button', { name: 'Delete', exact: true }).click();
}

/**
 * The table's "Model says" filter on a take the model called `label` throughout: `label` finds that
 * row alone, and says so in the address; "Model disagrees with the label" then finds nothing.
 */
export async function modelFilterFinds(page: Page, row: Locator, label: string): Promise<void> {
  const menu = page.getByTestId('filter-model');
  await menu.locator('summary').click();
  await menu.getByRole('checkbox', { name: `${label} 1` }).check();
  await expect(page.getByTestId('matching-count')).toHaveText('1 matching');
  await expect(row).toBeVisible();
  expect(new URL(page.url()).hash).toContain(`model=${label}`);
  await menu.getByRole('checkbox', { name: 'Model disagrees with the label' }).check();
  await expect(page.getByTestId('samples-none')).toContainText('No samples match');
}

/** label · category · state in the sample view's header. */
export const reviewFacts = (page: Page): Locator => page.getByTestId('sample-view').getByTestId('review-facts');

/**
 * Drags the mouse across the sample view's plot from one fraction of its width to another (0 is
 * its left edge), half way down: a selection, or a split window moved, as a person does it.
 */
export async function dragAcrossPlot(page: Page, view: Locator, from: number, to: number): Promise<void> {
  const box = (await view.locator('.u-over').boundingBox())!;
  await page.mouse.move(box.x + box.width * from, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * to, box.y + box.height / 2, { steps: 5 });
  await page.mouse.up();
}
