import { holdPort } from '../support/boards/board-on-pty.js';
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
