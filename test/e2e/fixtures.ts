import { test as base } from '@playwright/test';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe } from '../support/cli.js';

/** Each test gets its own `capture-desk serve` with its own data directory: tests own their world. */
export const test = base.extend<{ shell: { url: string; dataDir: string } }>({
  shell: async ({}, use) => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'cd-e2e-')), 'data');
    const { url, child } = await startServe(['--port', '0', '--data-dir', dataDir]);
    await use({ url, dataDir });
    child.kill('SIGTERM');
  },
});

export { expect } from '@playwright/test';
