import { dirname } from 'node:path';
import { holdPort, lineBoard } from '../support/boards/board-on-pty.js';
import { openPtyPair } from '../support/boards/pty.js';
import type { Cleanups } from '../support/cleanups.js';
import { openPort } from './app-page.js';
import { expect, test } from './fixtures.js';

test('a port another program holds: the app names the program and its pid', async ({ page, shell }) => {
  const cleanups: Cleanups = [];
  try {
    const pty = await openPtyPair();
    cleanups.push(() => pty.close());
    const holder = await holdPort(cleanups, pty.hostPath, 'arduino-ide');
    await page.goto(shell.url);
    await openPort(page, pty.hostPath);
    await expect(page.getByText(`${pty.hostPath} is held by arduino-ide (pid ${holder.pid}). Close that program (or its serial monitor) and try again.`)).toBeVisible({ timeout: 10_000 });
  } finally {
    for (const c of cleanups.splice(0).reverse()) await c();
  }
});

test('a folder typed as a port is refused in words; a port added by path can be forgotten, its stream ended', async ({ page, shell }) => {
  const cleanups: Cleanups = [];
  try {
    const board = await lineBoard(cleanups, ['--rate', '50']);
    const path = board.pty.hostPath;
    await page.goto(shell.url);
    // Before: "/tmp (added by path)" joined the list, for good (nothing in the app could remove it).
    const folder = dirname(shell.dataDir);
    await openPort(page, folder);
    await expect(page.getByRole('alert').filter({ hasText: `${folder} is a folder, not a serial port. Give the port's path (e.g. /dev/pts/3, /dev/rfcomm0).` })).toBeVisible();
    await expect(page.locator(`[data-source-id="serial:${folder}"]`)).toHaveCount(0);

    await openPort(page, path, { rowsOver: 10 });
    const entry = page.locator(`[data-source-id="serial:${path}"]`);
    await expect(entry).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByTestId('added-by-path')).toContainText(`${path} was added by path.`);
    await page.getByRole('button', { name: 'Forget this port' }).click();
    await expect(entry).toHaveCount(0);
    await expect(page.getByTestId('added-by-path')).toHaveCount(0);
    await expect(page.getByLabel('Open a port by path')).toBeFocused();
    // Forgotten for good: not back after a reload.
    await page.reload();
    await expect(page.getByTestId('device-list')).toBeVisible();
    await expect(page.locator(`[data-source-id="serial:${path}"]`)).toHaveCount(0);
  } finally {
    for (const c of cleanups.splice(0).reverse()) await c();
  }
});
