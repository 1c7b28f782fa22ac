import { audit } from './a11y.js';
import { expect, test } from './fixtures.js';

// Issue 42: the manual in the browser shell, offline in the app's own page: opened from the ? menu
// (the browser shell's help menu) and by F1, a page list to pick from, links between pages and to
// a heading followed in place, Back to the page before, focus on what was opened.

test('the manual opens from the ? menu; links go to another page and to a heading, Back returns', async ({ page, shell }) => {
  test.slow(); // some 30 steps, each a round trip to the core; at a load of 20 on 2 cores that passed 60 s
  await page.goto(shell.url);
  await page.getByRole('button', { name: /connection checklist/ }).click();
  const sheet = page.getByTestId('shortcut-sheet');
  await expect(sheet).toBeVisible();
  await expect(sheet).toContainText('The manual'); // F1 is in the list of shortcuts
  await sheet.getByRole('button', { name: 'Manual (F1)' }).click();

  const manual = page.getByTestId('manual');
  await expect(sheet).toBeHidden();
  await expect(manual).toBeVisible();
  const article = manual.getByTestId('manual-page');
  const pages = manual.getByRole('navigation', { name: 'Manual pages' });
  // The index first, then the pages in the index page's order, each by its own title.
  await expect(pages.getByRole('link')).toHaveCount(23);
  await expect(pages.getByRole('link').first()).toHaveText('Capture Desk manual');
  await expect(pages.getByRole('link').nth(1)).toHaveText('Getting started');
  await expect(pages.getByRole('link', { name: 'Capture Desk manual' })).toHaveAttribute('aria-current', 'page');
  const title = article.getByRole('heading', { level: 1 });
  await expect(title).toHaveText('Capture Desk manual');
  await expect(title).toBeFocused();
  await audit(page, 'the manual: its index page');

  // A link in the page to another page.
  await article.getByRole('link', { name: 'Getting started' }).first().click();
  await expect(article).toHaveAttribute('data-page', 'getting-started');
  await expect(title).toHaveText('Getting started');
  await expect(title).toBeFocused();
  await expect(pages.getByRole('link', { name: 'Getting started' })).toHaveAttribute('aria-current', 'page');
  await expect(article.locator('pre').first()).toContainText('npm ci');

  // A link from the page list, then a link to a heading on another page: focus on that heading.
  await pages.getByRole('link', { name: 'Browser shell' }).click();
  await expect(article).toHaveAttribute('data-page', 'browser-shell');
  await article.getByRole('link', { name: 'First start' }).click();
  await expect(article).toHaveAttribute('data-page', 'getting-started');
  await expect(article.getByRole('heading', { name: 'First start: connect to your project' })).toBeFocused();

  // Back, and back again.
  await manual.getByRole('button', { name: '← Back' }).click();
  await expect(article).toHaveAttribute('data-page', 'browser-shell');
  await expect(title).toBeFocused();
  await manual.getByRole('button', { name: '← Back' }).click();
  await expect(article).toHaveAttribute('data-page', 'getting-started');

  // Its links' hrefs name where they go: opened in a tab of their own, they open the app there.
  expect(await article.getByRole('link', { name: 'Logs and diagnostics' }).first().getAttribute('href')).toBe('?manual=logs-and-diagnostics');
});

test('a manual link in a tab of its own opens the app on that page and heading; pictures show; Esc closes, F1 reopens', async ({ page, shell }) => {
  test.slow(); // an axe audit of a page holding a large picture
  await page.goto(shell.url);
  await expect(page.getByTestId('connection')).toHaveText('connected');
  await page.goto(new URL('?manual=browser-shell&at=a-lab-station-used-from-a-laptop', page.url()).href);
  const manual = page.getByTestId('manual');
  const article = manual.getByTestId('manual-page');
  const pages = manual.getByRole('navigation', { name: 'Manual pages' });
  const title = article.getByRole('heading', { level: 1 });
  await expect(article).toHaveAttribute('data-page', 'browser-shell');
  await expect(article.getByRole('heading', { name: 'A lab station used from a laptop' })).toBeFocused();

  // A page with a picture shows it (sent by the core as data, nothing fetched).
  await pages.getByRole('link', { name: 'Finding and counting samples in a big data folder' }).click();
  const picture = article.getByRole('img', { name: /The Samples view/ });
  await expect(picture).toBeVisible();
  expect(await picture.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(100);
  await audit(page, 'the manual: a page with a picture and lists');
  await manual.screenshot({ path: 'test-results/manual.png' }); // to look at; not compared

  // Esc closes it; F1 opens it again where the reader was.
  await page.keyboard.press('Escape');
  await expect(manual).toBeHidden();
  await page.keyboard.press('F1');
  await expect(manual).toBeVisible();
  await expect(article).toHaveAttribute('data-page', 'finding-samples');
  await expect(title).toBeFocused();
});
