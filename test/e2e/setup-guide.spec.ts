import type { Page } from '@playwright/test';
import { openView, screenshot } from './app-page.js';
import { expect, test } from './fixtures.js';

// Issue 19, item 3: on first start (no API key or no project id) a checklist proves the connection:
// project id, API key, HMAC key (optional) and Test connection, said plainly, from the keyboard.

const checklist = (page: Page) => page.getByTestId('setup-checklist');
const item = (page: Page, id: string) => checklist(page).locator(`li[data-item=${id}]`);

/** Settings: the emulator's URLs and a project id, saved from the keyboard (Enter in the field). */
async function saveProject(page: Page, urls: { url: string; managementUrl: string }, projectId: number): Promise<void> {
  const form = page.getByTestId('settings');
  await form.getByLabel('Ingestion URL').fill(urls.url);
  await form.getByLabel('Management API URL').fill(urls.managementUrl);
  await form.getByLabel('Project ID').fill(String(projectId));
  await form.getByLabel('Project ID').press('Enter');
  await expect(form.getByRole('status')).toHaveText('Saved.');
}

/** From the checklist's "Set API key" to a saved key, keyboard only. */
async function typeKey(page: Page, key: string): Promise<void> {
  await checklist(page).getByRole('button', { name: /API key in Settings/ }).focus();
  await page.keyboard.press('Enter');
  const input = page.getByTestId('key-api-key').locator('input[type=password]');
  await expect(input).toBeFocused();
  await page.keyboard.type(key);
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('api-key-status')).toHaveText('set');
}

async function testFromChecklist(page: Page): Promise<void> {
  await checklist(page).getByRole('button', { name: 'Test connection' }).focus();
  await page.keyboard.press('Enter');
}

test('first start: the checklist leads to a tested connection (wrong key, wrong project, then right), then goes; ? brings it back, Settings tests at any time', async ({ page, shell, platform }, testInfo) => {
  test.setTimeout(90_000);
  const metadataUrl = (id: number) => `${platform.managementUrl}/api/${id}/raw-data/project-metadata`;
  await page.goto(shell.url);
  await expect(checklist(page)).toBeVisible();
  await expect(page.getByTestId('setup-progress')).toHaveText('3 to do');
  await expect(item(page, 'project')).toHaveAttribute('data-state', 'todo');
  await expect(item(page, 'api-key')).toContainText('system keychain');
  await expect(item(page, 'hmac-key')).toHaveAttribute('data-state', 'optional');
  await expect(item(page, 'hmac-key')).toContainText('HMAC key (optional)');
  await screenshot(page, testInfo, 'setup-checklist');

  // "Set" opens Settings with the keyboard in that field; the checklist stays and ticks as things are saved.
  // A project id one off (a typo), first.
  const wrongProject = platform.projectId + 1;
  await checklist(page).getByRole('button', { name: /Project ID in Settings/ }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('tab', { name: 'Settings' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('settings').getByLabel('Project ID')).toBeFocused();
  await saveProject(page, platform, wrongProject);
  await expect(item(page, 'project')).toHaveAttribute('data-state', 'done');
  await expect(item(page, 'project')).toContainText(`Project ${wrongProject}.`);

  // A wrong key: the test says which parts failed, with the URL it called, as an alert.
  await typeKey(page, 'ei_wrong_key');
  await expect(item(page, 'api-key')).toContainText('Stored in the system keychain.');
  await testFromChecklist(page);
  const alert = page.getByTestId('setup-test-alert');
  await expect(alert).toHaveAttribute('role', 'alert');
  await expect(alert).toContainText('Did not work: API key, Ingestion service.');
  await expect(alert).toContainText(`The platform refused the API key for project ${wrongProject}`);
  const steps = checklist(page).locator('ul.steps li');
  await expect(steps.filter({ hasText: 'API key' }).first()).toHaveAttribute('data-ok', 'false');
  await expect(steps.filter({ hasText: 'API key' }).first()).toContainText(metadataUrl(wrongProject));
  await expect(steps.filter({ hasText: 'Ingestion service' })).toContainText(`${platform.url}/api/training/files`);
  await expect(item(page, 'test')).toHaveAttribute('data-state', 'problem');
  await screenshot(page, testInfo, 'setup-wrong-key');

  // The right key, still for the mistyped project: the project is named.
  await typeKey(page, 'ei_test_key');
  await expect(item(page, 'test')).toHaveAttribute('data-state', 'todo'); // the old answer was about the old key
  await testFromChecklist(page);
  await expect(alert).toContainText('Did not work: Project.');
  await expect(alert).toContainText(`Project ${wrongProject} was not found`);
  await expect(steps.filter({ hasText: 'Ingestion service' })).toHaveAttribute('data-ok', 'true');

  // The right project: keys are kept per project, so the checklist asks for the key again.
  await saveProject(page, platform, platform.projectId);
  await expect(item(page, 'api-key')).toHaveAttribute('data-state', 'todo');
  await typeKey(page, 'ei_test_key');
  // Everything answers: the checklist goes, a notice says why, the keyboard lands on ?.
  await testFromChecklist(page);
  await expect(checklist(page)).toHaveCount(0);
  await expect(page.getByRole('status').filter({ hasText: 'Connection works: API key, Project, Ingestion service answered as expected.' })).toBeVisible();
  await expect(page.getByRole('button', { name: /connection checklist/ })).toBeFocused();
  expect(platform.samples).toHaveLength(0); // the test stores nothing

  // Settings → Connection: the same test, at any time.
  const panel = page.getByTestId('connection-panel');
  await panel.getByRole('button', { name: 'Test connection' }).click();
  await expect(page.getByTestId('settings-test-status')).toContainText('Connection works');
  await expect(panel.locator('ul.steps li[data-part=project]')).toContainText(metadataUrl(platform.projectId));
  await expect(panel.locator('ul.steps li[data-part=hmac-key]')).toContainText('unsigned');
  await screenshot(page, testInfo, 'settings-connection');

  // The ? menu opens it again, all ticked, with the keyboard on it.
  await page.keyboard.press('?');
  const sheet = page.getByTestId('shortcut-sheet');
  await sheet.getByRole('button', { name: 'Connection checklist…' }).click();
  await expect(sheet).toBeHidden();
  await expect(checklist(page)).toBeVisible();
  await expect(page.getByTestId('setup-progress')).toHaveText('all done');
  await expect(checklist(page).getByRole('heading', { name: 'Connect to your project' })).toBeFocused();
  await checklist(page).getByRole('button', { name: 'Hide' }).click();
  await expect(checklist(page)).toHaveCount(0);

  // Key and project set: the next start does not show it.
  await page.reload();
  await expect(page.getByTestId('api-key-status')).toHaveText('set'); // the key status is known by now
  await expect(checklist(page)).toHaveCount(0);
});

test('hidden by hand, the checklist stays hidden at the next start until the ? menu shows it', async ({ page, shell }) => {
  await page.goto(shell.url);
  await expect(checklist(page)).toBeVisible();
  await checklist(page).getByRole('button', { name: 'Hide' }).click();
  await expect(checklist(page)).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId('device-list')).toBeVisible();
  await openView(page, 'Samples'); // the key status has been read by now
  await expect(checklist(page)).toHaveCount(0);

  await page.locator('body').click({ position: { x: 5, y: 400 } });
  await page.keyboard.press('?');
  await page.getByTestId('shortcut-sheet').getByRole('button', { name: 'Connection checklist…' }).press('Enter');
  await expect(checklist(page)).toBeVisible();
  await expect(page.getByTestId('setup-progress')).toHaveText('3 to do');
});
