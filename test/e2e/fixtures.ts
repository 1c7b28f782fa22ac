import { test as base } from '@playwright/test';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBoard, type Board, type BoardOptions } from '../support/boards/board-on-pty.js';
import type { Cleanups } from '../support/cleanups.js';
import { startServe } from '../support/cli.js';
import { startIngestionServer, type IngestionServer } from '../support/ingestion-server/server.js';

interface Fixtures {
  shell: { url: string; dataDir: string };
  /** The ingestion service and management API emulator, running inside the test process. */
  platform: IngestionServer & { projectId: number };
  /**
   * Starts a board script (test/support/boards) on a pseudo-terminal of its own, as the integration
   * tests do (startBoard); stopped and its PTY closed after the test, even one that failed half way
   * (`pty.close()` or `unplug()` take it away sooner).
   */
  board: (script: string, args: string[], opts?: BoardOptions) => Promise<Board>;
}

/** Each test gets its own `capture-desk serve` with its own data directory: tests own their world. */
export const test = base.extend<Fixtures>({
  shell: async ({}, use) => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'cd-e2e-')), 'data');
    // The specs' fixture files are a few rows each (too short for the default data-quality rule):
    // nothing is held back unless a spec turns the rule on in Settings, as quality.spec.ts does.
    await mkdir(dataDir, { recursive: true });
    await writeFile(join(dataDir, 'settings.json'), JSON.stringify({ qualityHold: 'off' }));
    const { url, child } = await startServe(['--port', '0', '--data-dir', dataDir]);
    await use({ url, dataDir });
    child.kill('SIGTERM');
  },
  platform: async ({}, use) => {
    // Keys live in the session's keychain, which all tests share, filed per project ID. A project
    // of its own per test means no test sees a key another one stored.
    const projectId = 1000 + Math.floor(Math.random() * 1_000_000);
    const srv = await startIngestionServer({ projectId });
    await use(Object.assign(srv, { projectId }));
    await srv.close();
  },
  board: async ({}, use) => {
    const cleanups: Cleanups = [];
    await use((script, args, opts) => startBoard(cleanups, script, args, opts));
    for (const c of cleanups.splice(0).reverse()) await c();
  },
});

export { expect } from '@playwright/test';
