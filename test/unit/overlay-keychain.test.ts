import { describe, expect, it } from 'vitest';
import { keyStatus } from '../../src-main/core/secrets/key-service.js';
import { keychainUnavailable } from '../../src-main/core/secrets/keychain-errors.js';
import { memoryKeychain, type Keychain } from '../../src-main/core/secrets/keychain.js';
import { overlayKeychain } from '../../src-main/core/secrets/overlay-keychain.js';
import { ProjectKeys } from '../../src-main/core/secrets/project-keys.js';

/** No Secret Service: every call fails as keytar's would without a D-Bus session. */
const noKeychain: Keychain = {
  get: async (account) => {
    throw keychainUnavailable({ op: 'get', reason: 'no-session-bus', platform: 'linux', account });
  },
  set: async (account, secret) => {
    throw keychainUnavailable({ op: 'set', reason: 'no-session-bus', platform: 'linux', secret, account });
  },
  delete: async () => {
    throw keychainUnavailable({ op: 'delete', reason: 'no-session-bus', platform: 'linux' });
  },
};
const byKind = { slot: (account: string) => account.slice(account.lastIndexOf(':') + 1) };

describe('keys held in memory for one run (overlay keychain)', () => {
  it('answers by account and never hands the held keys to the keychain (capture-desk connect)', async () => {
    const base = memoryKeychain({ 'project:7:hmac-key': 'from-keychain' });
    const k = overlayKeychain(base, new Map([['project:7:api-key', 'given']]));
    expect(await k.get('project:7:api-key')).toBe('given');
    expect(await k.get('project:8:api-key')).toBeNull();
    expect(await k.get('project:7:hmac-key')).toBe('from-keychain');
    await k.set('project:7:api-key', 'typed');
    expect(await k.get('project:7:api-key')).toBe('typed');
    expect(base.entries.has('project:7:api-key')).toBe(false);
    expect(k.origin?.('project:7:api-key')).toEqual({ from: 'session', name: null });
    expect(k.origin?.('project:7:hmac-key')).toBeNull();
  });

  it('filed by kind (serve), answers for whichever project is asked, and can be replaced and cleared without a keychain', async () => {
    const k = overlayKeychain(noKeychain, new Map([['api-key', { secret: 'env-key', origin: { from: 'environment', name: 'CAPTURE_DESK_API_KEY' } }]]), byKind);
    const keys = new ProjectKeys(k);
    expect(await keys.getApiKey(null)).toBe('env-key');
    expect(await keys.getApiKey(4242)).toBe('env-key');
    expect(keys.source(4242, 'api-key')).toEqual({ from: 'environment', name: 'CAPTURE_DESK_API_KEY', stored: false });
    expect(keys.source(4242, 'hmac-key')).toEqual({ from: 'keychain', name: null, stored: true });

    // Each key on its own: the held one is "set" even though the keychain cannot be read.
    const s = await keyStatus(keys, 4242);
    expect(s).toMatchObject({ apiKey: 'set', hmacKey: 'unknown', apiKeySource: { from: 'environment' }, hmacKeySource: { from: 'keychain' } });
    expect(s.keychainProblem).toMatch(/D-Bus/);

    await keys.setApiKey(4242, 'typed-key');
    expect(await keys.getApiKey(null)).toBe('typed-key');
    expect(keys.source(null, 'api-key')).toEqual({ from: 'session', name: null, stored: false });
    expect(await keys.clearApiKey(4242)).toBe(true);
    expect(await keys.getApiKey(4242)).toBeNull(); // cleared for the run: the keychain is not asked
    expect(await keys.clearApiKey(4242)).toBe(false);
    await keys.setApiKey(4242, 'again');
    expect(await keys.getApiKey(4242)).toBe('again');
    await expect(keys.setHmacKey(4242, 'not-held')).rejects.toMatchObject({ code: 'Unavailable' });
  });
});
