// The real OS keychain through keytar. `npm test` (test/run.sh) runs this inside a private D-Bus
// session with a throwaway, unlocked GNOME Keyring. Two modes:
//   - default: a real Secret Service round trip. Fails (does not skip) without a session bus.
//   - CAPTURE_DESK_NO_KEYRING=1: the machine has no keychain; storing must be refused, loudly:
//       env -u DBUS_SESSION_BUS_ADDRESS -u DISPLAY CAPTURE_DESK_NO_KEYRING=1 npx vitest run test/integration/keychain.test.ts
// Only the tests of the mode in force are registered, so neither mode reports skipped tests.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { CoreError } from '../../src-main/core/errors.js';
import { KEYCHAIN_SERVICE, keytarKeychain } from '../../src-main/core/secrets/keychain.js';
import { ProjectKeys, projectAccount, resolveApiKey } from '../../src-main/core/secrets/project-keys.js';
import { rejectionOf } from '../support/errors.js';

const noKeyring = process.env.CAPTURE_DESK_NO_KEYRING === '1';
// A project ID no real project has, unique per run, so a developer's own keyring is never touched
// beyond these two accounts (removed again in afterAll).
const PROJECT = 900_000_000 + Math.floor(Math.random() * 90_000_000);
const API_KEY = `ei_it_${process.pid}_${Date.now().toString(36)}`;
const HMAC_KEY = `hmac_it_${process.pid}_${Date.now().toString(36)}`;

const rejection = (p: Promise<unknown>) => rejectionOf(p, CoreError);

/**
 * Looks an account up from a separate Node process that loads keytar afresh, as another run of the
 * app would: its password, and how many items the keyring holds for it.
 */
async function lookUpInAnotherProcess(account: string): Promise<{ password: string | null; items: number }> {
  const code = `const k = (await import('keytar')).default;
    const { KC_SERVICE: service, KC_ACCOUNT: account } = process.env;
    const items = (await k.findCredentials(service)).filter((c) => c.account === account).length;
    process.stdout.write(JSON.stringify({ password: await k.getPassword(service, account), items }));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', code], {
    cwd: process.cwd(),
    env: { ...process.env, KC_SERVICE: KEYCHAIN_SERVICE, KC_ACCOUNT: account },
    timeout: 15_000,
  });
  return JSON.parse(stdout) as { password: string | null; items: number };
}

/** Fails the test (each one, so every report counts it) when there is no Secret Service to test against. */
function requireSessionBus(): void {
  if (process.platform === 'linux' && !process.env.DBUS_SESSION_BUS_ADDRESS) {
    throw new Error(
      'No D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set), so there is no Secret Service to test against. ' +
        'Run the tests with `npm test`, which starts a private D-Bus session with an unlocked GNOME Keyring; or set ' +
        'CAPTURE_DESK_NO_KEYRING=1 (with DBUS_SESSION_BUS_ADDRESS and DISPLAY unset) to test the no-keychain behaviour.',
    );
  }
}

if (!noKeyring) describe('keychain: real Secret Service round trip', () => {
  const chain = keytarKeychain({ timeoutMs: 10_000 });
  const keys = new ProjectKeys(chain);

  afterAll(async () => {
    if (!process.env.DBUS_SESSION_BUS_ADDRESS && process.platform === 'linux') return;
    await keys.clearApiKey(PROJECT).catch(() => {});
    await keys.clearHmacKey(PROJECT).catch(() => {});
  });

  it('stores, reads and removes a project API key', async () => {
    requireSessionBus();
    const account = projectAccount(PROJECT, 'api-key');
    expect(await chain.get(account)).toBeNull();
    expect(await keys.status(PROJECT)).toEqual({ apiKey: 'not set', hmacKey: 'not set' });

    await keys.setApiKey(PROJECT, ` ${API_KEY}\n`);
    expect(await chain.get(account)).toBe(API_KEY);
    expect(await keys.status(PROJECT)).toEqual({ apiKey: 'set', hmacKey: 'not set' });
    expect(await resolveApiKey({ env: {}, projectId: PROJECT, keys })).toEqual({ key: API_KEY, source: 'keychain' });

    await keys.setApiKey(PROJECT, `${API_KEY}_v2`); // replacing, not adding a second item
    expect(await keys.getApiKey(PROJECT)).toBe(`${API_KEY}_v2`);
    expect(await lookUpInAnotherProcess(account)).toEqual({ password: `${API_KEY}_v2`, items: 1 });

    expect(await keys.clearApiKey(PROJECT)).toBe(true);
    expect(await keys.clearApiKey(PROJECT)).toBe(false);
    expect(await keys.getApiKey(PROJECT)).toBeNull();
  });

  it('keeps the HMAC key apart from the API key', async () => {
    requireSessionBus();
    await keys.setHmacKey(PROJECT, HMAC_KEY);
    expect(await keys.status(PROJECT)).toEqual({ apiKey: 'not set', hmacKey: 'set' });
    expect(await keys.getHmacKey(PROJECT)).toBe(HMAC_KEY);
    expect(await keys.clearHmacKey(PROJECT)).toBe(true);
  });

  it('is seen by a second keychain instance and by another process loading keytar afresh', async () => {
    requireSessionBus();
    await keys.setApiKey(PROJECT, API_KEY);
    const second = new ProjectKeys(keytarKeychain());
    expect(await second.getApiKey(PROJECT)).toBe(API_KEY);
    expect(await second.status(PROJECT)).toEqual({ apiKey: 'set', hmacKey: 'not set' });
    expect(await lookUpInAnotherProcess(projectAccount(PROJECT, 'api-key'))).toEqual({ password: API_KEY, items: 1 });

    expect(await second.clearApiKey(PROJECT)).toBe(true);
    expect(await keys.getApiKey(PROJECT)).toBeNull();
    expect(await lookUpInAnotherProcess(projectAccount(PROJECT, 'api-key'))).toEqual({ password: null, items: 0 });
  });
});

/** The "no keychain" case needs a process that cannot reach any keyring; fails the test otherwise. */
function requireNoSessionBus(): void {
  // With a bus, libsecret would reach (or D-Bus-activate) a real keyring; with DISPLAY, libdbus
  // would autolaunch a bus. Either way this would not be the "no keychain" case.
  for (const name of ['DBUS_SESSION_BUS_ADDRESS', 'DISPLAY']) {
    if (process.env[name]) {
      throw new Error(
        `CAPTURE_DESK_NO_KEYRING=1 needs ${name} unset: env -u DBUS_SESSION_BUS_ADDRESS -u DISPLAY ` +
          'CAPTURE_DESK_NO_KEYRING=1 npx vitest run test/integration/keychain.test.ts',
      );
    }
  }
}

if (noKeyring) describe('keychain: no keychain on this machine (CAPTURE_DESK_NO_KEYRING=1)', () => {
  it('refuses to store a key, quickly, and says why and what to do', async () => {
    requireNoSessionBus();
    const started = Date.now();
    const err = await rejection(keytarKeychain().set(projectAccount(PROJECT, 'api-key'), API_KEY));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(err.code).toBe('Unavailable');
    expect(err.details).toEqual({ keychain: 'unavailable', reason: 'no-session-bus' });
    expect(err.message).toMatch(
      /^No keychain \(Secret Service\) is available: there is no D-Bus session bus \(.+\)\. Install and unlock GNOME Keyring or KWallet, or pass the key with --api-key \/ CAPTURE_DESK_API_KEY for this run\. The key was not stored\.$/,
    );
    expect(err.message).not.toContain(API_KEY);
  });

  it('cannot report key status, and says so', async () => {
    requireNoSessionBus();
    const err = await rejection(new ProjectKeys(keytarKeychain()).status(PROJECT));
    expect(err.code).toBe('Unavailable');
    expect(err.message).toMatch(/^No keychain \(Secret Service\) is available: .* No stored key was read\.$/);
  });

  it('still runs with --api-key or CAPTURE_DESK_API_KEY, and otherwise names both problems', async () => {
    requireNoSessionBus();
    const keys = new ProjectKeys(keytarKeychain());
    expect(await resolveApiKey({ flag: API_KEY, env: {}, projectId: PROJECT, keys })).toEqual({ key: API_KEY, source: 'flag' });
    expect(await resolveApiKey({ env: { CAPTURE_DESK_API_KEY: API_KEY }, projectId: PROJECT, keys })).toEqual({ key: API_KEY, source: 'env' });
    const err = await rejection(resolveApiKey({ env: {}, projectId: PROJECT, keys }));
    expect(err.code).toBe('Unauthorized');
    expect(err.message).toMatch(
      new RegExp(`^No API key for project ${PROJECT}: neither --api-key nor CAPTURE_DESK_API_KEY is set, and the keychain could not be read\\. No keychain \\(Secret Service\\) is available: `),
    );
  });
});
