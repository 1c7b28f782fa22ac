import { test as base } from '@playwright/test';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { openPtyPair } from '../support/boards/pty.js';
import { startServe } from '../support/cli.js';
import { startIngestionServer, type IngestionServer } from '../support/ingestion-server/server.js';

interface Fixtures {
  shell: { url: string; dataDir: string };
  /** The ingestion service and management API emulator, running inside the test process. */
  platform: IngestionServer & { projectId: number };
  /** Starts a board script (test/support/boards) on a pseudo-terminal of its own; ended after the test (close() unplugs it sooner). */
  board: (script: string, args: string[]) => Promise<{ hostPath: string; child: ChildProcess; close(): Promise<void> }>;
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
    const ends: Array<() => Promise<void>> = [];
    await use(async (script, args) => {
      const pty = await openPtyPair();
      const child = spawn(process.execPath, [script, '--port', pty.boardPath, ...args], { stdio: 'ignore' });
      ends.push(async () => {
        child.kill('SIGKILL');
        await pty.close();
      });
      return { hostPath: pty.hostPath, child, close: () => pty.close() };
    });
    for (const end of ends.reverse()) await end();
  },
});

export { expect } from '@playwright/test';
