// Finding samples in a lab's data folder (issue 22), the way a person does it on the Samples view:
// 1,150 samples (three pages), the search box, the filter menus and their chips, sortable headers,
// the pager, and the address keeping all of it over a reload. The core's query is covered by
// test/integration/find-samples.test.ts; here the question is whether the page asks it right and
// shows its answer. Every expectation is worked out from the seed below, not read off the page.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test as base, type Locator, type Page } from '@playwright/test';
import { createLogger } from '../../src-main/core/log.js';
import { SampleStore } from '../../src-main/core/samples/sample-store.js';
import { runCli, startServe } from '../support/cli.js';
import { screenshot } from './app-page.js';
import { encodeCbor, sensorDoc } from '../support/ingestion-server/fixtures.js';

// ---------- the seed: what every sample is, so each test can say which rows it expects ----------

const N = 1150;
const LABELS = ['idle', 'wave', 'knock'] as const;
const SUBJECTS = ['ana', 'jo', 'carla', 'dev'];
const SOURCE = 'serial:/dev/ttyACM0';
interface Seed {
  i: number;
  name: string;
  label: string | null;
  category: 'training' | 'testing';
  subject: string;
  session: string | null;
  uploaded: boolean;
  source: boolean;
  /** Local day it was "recorded" on, moved into the past for a date range; null = today (imported). */
  day: [number, number, number] | null;
}
const seed: Seed[] = Array.from({ length: N }, (_, i) => {
  const unlabeled = i % 50 === 7;
  const label = unlabeled ? null : LABELS[i % 3]!;
  return {
    i,
    name: `${label ?? 'noise'}.${i}.cbor`,
    label,
    category: i % 5 === 0 ? 'testing' : 'training',
    subject: SUBJECTS[i % 4]!,
    session: i < 100 ? 'take-A' : i < 130 ? 'take-B' : null,
    uploaded: i % 7 === 0,
    source: i >= 130 && i < 150,
    day: i >= 200 && i < 260 ? [2026, 0, 10] : i >= 260 && i < 300 ? [2026, 0, 20] : null,
  };
});
/** Only in the metadata of one sample, and only in the note of another. */
const RARE_META = { i: 321, value: 'attic-zeppelin' };
const NOTE = { i: 500, text: 'checked by Marguerite' };
const names = (pick: (s: Seed) => boolean) => seed.filter(pick).map((s) => s.name);
/** The core sorts names without case; every name here is lower case, so plain order is the same. */
const byName = (list: string[]) => [...list].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

let exportDir = '';

/** An export as the platform writes it (info.labels with labels, categories and metadata), written once for the file. */
async function writeExport(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cd-e2e-find-export-'));
  await mkdir(join(dir, 'training'));
  await mkdir(join(dir, 'testing'));
  const files = [];
  for (const s of seed) {
    const values = Array.from({ length: 60 }, (_, r) => [0, 1, 2].map((a) => Math.round(Math.sin(r / 4 + a + s.i) * 981) / 100));
    values[0]![0] = s.i; // distinct content
    const path = `${s.category}/${s.name}`;
    await writeFile(join(dir, path), encodeCbor(sensorDoc(values, 10)));
    const metadata: Record<string, string> = { subject: s.subject };
    if (s.session) metadata['session'] = s.session;
    if (s.i === RARE_META.i) metadata['place'] = RARE_META.value;
    files.push({ path, category: s.category, label: s.label === null ? { type: 'unlabeled' } : { type: 'label', label: s.label }, metadata });
  }
  await writeFile(join(dir, 'info.labels'), JSON.stringify({ version: 1, files }));
  return dir;
}

/**
 * Its own data folder: the export imported with the real CLI, then what an import cannot say
 * written into the index as the system would have (uploads, a capture's source, a note, older
 * days), before `capture-desk serve` starts on it.
 */
const test = base.extend<{ shell: { url: string } }>({
  shell: async ({}, use) => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'cd-e2e-find-')), 'data');
    await mkdir(dataDir, { recursive: true });
    await writeFile(join(dataDir, 'settings.json'), JSON.stringify({ qualityHold: 'off' }));
    const imported = await runCli(['samples', 'import', exportDir, '--data-dir', dataDir], { timeoutMs: 120_000 });
    expect(imported.code, imported.stderr).toBe(0);
    const store = await SampleStore.open(dataDir, createLogger(() => {}));
    try {
      const set = (sql: string, pick: (s: Seed) => boolean, args: (s: Seed) => Array<string | number> = () => []) => {
        const stmt = store.db.prepare(`UPDATE samples SET ${sql} WHERE name = ?`);
        store.db.transaction(() => {
          for (const s of seed.filter(pick)) stmt.run(...args(s), s.name);
        })();
      };
      set("state = 'uploaded', platform_sample_id = ?, uploaded_at = ?", (s) => s.uploaded, (s) => [100_000 + s.i, new Date().toISOString()]);
      set(`extra = json_set(coalesce(extra, '{}'), '$.source', '${SOURCE}')`, (s) => s.source);
      set('note = ?', (s) => s.i === NOTE.i, () => [NOTE.text]);
      set('created = ?', (s) => s.day !== null, (s) => [new Date(s.day![0], s.day![1], s.day![2], 12, 0, s.i % 60).toISOString()]);
    } finally {
      await store.close();
    }
    const { url, child } = await startServe(['--port', '0', '--data-dir', dataDir]);
    await use({ url });
    child.kill('SIGTERM');
  },
});

test.beforeAll(async () => {
  test.setTimeout(120_000);
  exportDir = await writeExport();
});

// ---------- reading the page ----------

const table = (page: Page) => page.getByTestId('sample-table');
const rowNames = (page: Page) => table(page).locator('tbody td.name');
const matching = (page: Page) => page.getByTestId('matching-count');
const search = (page: Page) => page.getByRole('searchbox', { name: 'Search samples' });

async function open(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.keyboard.press('Alt+2');
  await expect(matching(page)).toHaveText(`${N.toLocaleString('en-US')} matching`);
}

/** Exactly these rows, in any order (the default sort is by time of import, which ties). */
async function expectRowsAnyOrder(page: Page, expected: string[]): Promise<void> {
  await expect(matching(page)).toHaveText(`${expected.length.toLocaleString('en-US')} matching`);
  await expect(rowNames(page)).toHaveCount(Math.min(expected.length, 500));
  expect(byName(await rowNames(page).allTextContents())).toEqual(byName(expected));
}

/** Ticks a value in one of the filter menus (opening it), then folds the menu again. */
async function tick(page: Page, menu: string, value: string | RegExp): Promise<void> {
  const m = page.getByTestId(`filter-${menu}`);
  if ((await m.getAttribute('open')) === null) await m.locator('summary').click();
  await m.getByRole('checkbox', { name: value }).check();
  await page.keyboard.press('Escape');
  await expect(m).not.toHaveAttribute('open');
}

const chip = (page: Page, text: string): Locator => page.getByTestId('filter-chips').getByRole('button', { name: `Remove filter ${text}` });

// ---------- the tests ----------

test('the search finds by name, label, metadata value and note as it is typed; the count follows', async ({ page, shell }) => {
  await open(page, shell.url);
  // "/" jumps to the search from anywhere outside a text field.
  await table(page).focus();
  await page.keyboard.press('/');
  await expect(search(page)).toBeFocused();
  await expect(search(page)).toHaveAttribute('placeholder', /name, label, metadata, note/);

  // Typed key by key: no Enter, the pause after typing asks.
  await page.keyboard.type('zeppelin', { delay: 40 });
  await expect(rowNames(page)).toHaveText([seed[RARE_META.i]!.name]);
  await expect(matching(page)).toHaveText('1 matching');

  await search(page).fill('marguerite');
  await expect(rowNames(page)).toHaveText([seed[NOTE.i]!.name]);

  await search(page).fill('wave.1000');
  await expect(rowNames(page)).toHaveText(['wave.1000.cbor']);

  // A label: every knock sample and nothing else (fewer than a page).
  await search(page).fill('knock');
  await expectRowsAnyOrder(page, names((s) => s.label === 'knock'));
  await expect(table(page).locator('tbody td.label')).toHaveText(Array(names((s) => s.label === 'knock').length).fill('knock'));

  // A metadata value shared by a quarter of the folder; words must all be found.
  await search(page).fill('carla wave');
  await expectRowsAnyOrder(page, names((s) => s.subject === 'carla' && s.label === 'wave'));

  // Escape clears the search: everything again.
  await search(page).press('Escape');
  await expect(search(page)).toHaveValue('');
  await expect(matching(page)).toHaveText('1,150 matching');

  // Nothing matches: said so (not "no samples yet"), with a way back.
  await search(page).fill('no-such-thing-anywhere');
  await expect(page.getByTestId('samples-none')).toContainText('No samples match');
  await expect(page.getByTestId('samples-empty')).toHaveCount(0);
  await page.getByTestId('samples-none').getByRole('button', { name: 'Clear filters' }).click();
  await expect(search(page)).toHaveValue('');
  await expect(matching(page)).toHaveText('1,150 matching');
});

test('filters combine: label, category, state, session, source and dates, each removable as a chip', async ({ page, shell }, testInfo) => {
  await open(page, shell.url);
  // Each value in a menu says how many samples have it.
  await page.getByTestId('filter-label').locator('summary').click();
  const idleCount = names((s) => s.label === 'idle').length;
  await expect(page.getByTestId('filter-label').getByRole('checkbox', { name: `idle ${idleCount.toLocaleString('en-US')}` })).toBeVisible();
  await expect(page.getByTestId('filter-label').getByRole('checkbox', { name: `unlabeled ${names((s) => s.label === null).length}` })).toBeVisible();
  await screenshot(page, testInfo, 'find-label-menu');
  await page.keyboard.press('Escape');

  await tick(page, 'label', /^idle/);
  await tick(page, 'label', /^knock/);
  // By keyboard: Enter opens a menu, Tab walks its values, Space ticks, Escape folds it back.
  const category = page.getByTestId('filter-category');
  await category.locator('summary').focus();
  await page.keyboard.press('Enter');
  await expect(category).toHaveAttribute('open', '');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await expect(category.getByRole('checkbox', { name: /^testing/ })).toBeFocused();
  await page.keyboard.press('Space');
  await expectRowsAnyOrder(page, names((s) => (s.label === 'idle' || s.label === 'knock') && s.category === 'testing'));
  await page.keyboard.press('Escape');
  await expect(category).not.toHaveAttribute('open');
  await expect(category.locator('summary')).toBeFocused();
  await page.locator('button[data-filter=uploaded]').click();
  const combined = names((s) => (s.label === 'idle' || s.label === 'knock') && s.category === 'testing' && s.uploaded);
  await expectRowsAnyOrder(page, combined);
  await expect(table(page).locator('tbody tr[data-state=uploaded]')).toHaveCount(combined.length);

  // A chip takes away its own filter only.
  await expect(page.getByTestId('filter-chips').getByRole('button', { name: /^Remove filter/ })).toHaveText([/Label: idle/, /Label: knock/, /Category: testing/]);
  await chip(page, 'Label: knock').click();
  await expectRowsAnyOrder(page, names((s) => s.label === 'idle' && s.category === 'testing' && s.uploaded));
  await expect(page.locator('button[data-filter=uploaded]')).toHaveAttribute('aria-pressed', 'true');

  await page.getByTestId('clear-filters').click();
  await expect(matching(page)).toHaveText('1,150 matching');
  await expect(page.getByTestId('filter-chips')).toHaveCount(0);

  // A session (listed with when it was recorded) and a live source; together they match nothing.
  await tick(page, 'session', /take-A/);
  await expectRowsAnyOrder(page, names((s) => s.session === 'take-A'));
  await tick(page, 'source', new RegExp(SOURCE));
  await expect(page.getByTestId('samples-none')).toContainText('No samples match');
  await page.getByTestId('filter-chips').getByRole('button', { name: /^Remove filter Session: .*take-A/ }).click();
  await expectRowsAnyOrder(page, names((s) => s.source));
  await page.getByTestId('clear-filters').click();

  // A date range: the last day counts whole (the samples of the 20th were made at noon).
  await page.getByTestId('filter-date').locator('summary').click();
  await page.getByLabel('From', { exact: true }).fill('2026-01-11');
  await page.getByLabel('To', { exact: true }).fill('2026-01-20');
  await page.keyboard.press('Escape');
  await expectRowsAnyOrder(page, names((s) => s.day?.[2] === 20));
  await expect(chip(page, 'From 2026-01-11')).toBeVisible();
  // Open-ended: from the 11th on is everything but the samples of the 10th.
  await chip(page, 'To 2026-01-20').click();
  await expect(matching(page)).toHaveText(`${(N - names((s) => s.day?.[2] === 10).length).toLocaleString('en-US')} matching`);
  await expect(page.getByTestId('filter-date').locator('summary')).toHaveAccessibleName('Date (1 chosen)');
});

test('headers sort both ways, the pager goes to first, last and a typed page, and a reload keeps search, filters, sort and page', async ({ page, shell }, testInfo) => {
  await open(page, shell.url);
  const all = byName(seed.map((s) => s.name));
  const pager = page.getByTestId('pager');
  await expect(pager.getByTestId('page-range')).toHaveText('1–500 of 1,150');

  const nameHeader = table(page).locator('th[data-sort-key=name]');
  await nameHeader.getByRole('button').click();
  await expect(nameHeader).toHaveAttribute('aria-sort', 'ascending');
  await expect(table(page).locator('th[data-sort-key=created]')).not.toHaveAttribute('aria-sort');
  await expect(rowNames(page)).toHaveText(all.slice(0, 500));
  await nameHeader.getByRole('button').click();
  await expect(nameHeader).toHaveAttribute('aria-sort', 'descending');
  const desc = [...all].reverse();
  await expect(rowNames(page)).toHaveText(desc.slice(0, 500));

  // Last, first, then a typed page.
  await pager.getByRole('button', { name: 'Last page' }).click();
  await expect(pager.getByTestId('page-range')).toHaveText('1,001–1,150 of 1,150');
  await expect(rowNames(page)).toHaveText(desc.slice(1000));
  await expect(pager.getByRole('button', { name: 'Next ›' })).toBeDisabled();
  await pager.getByRole('button', { name: 'First page' }).click();
  await expect(rowNames(page)).toHaveText(desc.slice(0, 500));
  await expect(pager.getByRole('button', { name: '‹ Previous' })).toBeDisabled();
  const input = pager.getByTestId('page-input');
  await input.fill('2');
  await input.press('Enter');
  await expect(pager.getByTestId('page-range')).toHaveText('501–1,000 of 1,150');
  await expect(rowNames(page)).toHaveText(desc.slice(500, 1000));
  await expect(input).toHaveValue('2');

  // Search, filters, sort and page together; then the same rows after a reload.
  await search(page).fill('a');
  await tick(page, 'category', /^training/);
  const text = (s: Seed) => [s.name, s.label ?? '', s.subject, s.session ?? '', s.i === RARE_META.i ? RARE_META.value : '', s.i === NOTE.i ? NOTE.text : ''].join(' ').toLowerCase();
  const expected = byName(names((s) => s.category === 'training' && text(s).includes('a'))).reverse();
  expect(expected.length).toBeGreaterThan(500);
  await expect(matching(page)).toHaveText(`${expected.length} matching`);
  await pager.getByRole('button', { name: 'Next ›' }).click();
  await expect(rowNames(page)).toHaveText(expected.slice(500, 1000));
  const before = await rowNames(page).allTextContents();

  await page.reload();
  await expect(page.getByRole('tab', { name: /^Samples/ })).toHaveAttribute('aria-selected', 'true');
  await expect(rowNames(page)).toHaveText(before);
  await expect(search(page)).toHaveValue('a');
  await expect(chip(page, 'Category: training')).toBeVisible();
  await expect(table(page).locator('th[data-sort-key=name]')).toHaveAttribute('aria-sort', 'descending');
  await expect(page.getByTestId('page-input')).toHaveValue('2');
  expect(new URL(page.url()).hash).toMatch(/^#samples\?/);
  await screenshot(page, testInfo, 'find-after-reload');

  // The README's picture (resources/readme/find-samples.png is a copy, refreshed by hand as the others are).
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await mkdir('test-results', { recursive: true });
  await page.getByTestId('samples-view').screenshot({ path: 'test-results/find-samples.png' });
});
