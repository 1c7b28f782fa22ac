import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll } from 'vitest';
import { testPulseFromEnv } from './pulse.mjs';

/**
 * What an audio integration file sets up first: cleanups run (newest first) after each test, the
 * PulseAudio test server of test/env.sh (read once the file's tests start), and fresh data folders.
 */
export function audioTestSetup(prefix: string): {
  cleanups: Array<() => unknown>;
  pulse: () => { env: { PULSE_SERVER: string }; sink: string };
  dataDir: () => Promise<string>;
} {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  let server: { env: { PULSE_SERVER: string }; sink: string } | undefined;
  beforeAll(() => {
    server = testPulseFromEnv();
  });
  return {
    cleanups,
    pulse: () => server ?? (server = testPulseFromEnv()),
    dataDir: async () => join(await mkdtemp(join(tmpdir(), prefix)), 'data'),
  };
}
