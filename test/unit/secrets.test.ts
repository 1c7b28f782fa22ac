import { describe, expect, it } from 'vitest';
import { CoreError } from '../../src-main/core/errors.js';
import { KEYCHAIN_SERVICE, keytarKeychain, memoryKeychain, type KeytarLike } from '../../src-main/core/secrets/keychain.js';
import { classifyKeychainError } from '../../src-main/core/secrets/keychain-errors.js';
import { ProjectKeys, projectAccount, resolveApiKey } from '../../src-main/core/secrets/project-keys.js';
import { redactSecrets } from '../../src-main/core/secrets/redact.js';
import { rejectionOf } from '../support/errors.js';

const KEY = 'ei_0123456789abcdef0123456789abcdef';
const HMAC = 'f00dfeedf00dfeedf00dfeedf00dfeed';

const rejection = (p: Promise<unknown>) => rejectionOf(p, CoreError);

/** keytar as it behaves on Linux, with every call failing the way libsecret says `raw`. */
function failingKeytar(raw: string): () => Promise<KeytarLike> {
  const fail = () => Promise.reject(new Error(raw));
  return async () => ({ getPassword: fail, setPassword: fail, deletePassword: fail });
}

describe('ProjectKeys', () => {
  it('files keys under project:<id>:<kind> and reports only set / not set', async () => {
    const chain = memoryKeychain();
    const keys = new ProjectKeys(chain);
    expect(await keys.status(7)).toEqual({ apiKey: 'not set', hmacKey: 'not set' });

    await keys.setApiKey(7, `  ${KEY}\n`); // pasted with whitespace around it
    await keys.setHmacKey(null, HMAC);
    expect([...chain.entries]).toEqual([
      ['project:7:api-key', KEY],
      ['project:default:hmac-key', HMAC],
    ]);
    expect(await keys.getApiKey(7)).toBe(KEY);
    expect(await keys.getHmacKey(null)).toBe(HMAC);
    expect(await keys.status(7)).toEqual({ apiKey: 'set', hmacKey: 'not set' });
    expect(await keys.status(null)).toEqual({ apiKey: 'not set', hmacKey: 'set' });

    expect(await keys.clearApiKey(7)).toBe(true);
    expect(await keys.clearApiKey(7)).toBe(false);
    expect(await keys.clearHmacKey(null)).toBe(true);
    expect(chain.entries.size).toBe(0);
  });

  it('rejects bad project IDs', async () => {
    for (const id of [0, -1, 1.5, Number.NaN]) {
      expect(() => projectAccount(id, 'api-key')).toThrow(/Project ID must be a positive whole number/);
    }
    expect(projectAccount(null, 'hmac-key')).toBe('project:default:hmac-key');
  });

  it.each([
    ['', /^API key is empty\.$/],
    ['   \n', /^API key is empty\.$/],
    [`${KEY} ${KEY}`, /^API key contains a space at character 36; a key is printable ASCII/],
    [`${KEY}\n${KEY}`, /contains a line break at character 36/],
    [`${KEY}\t`.padStart(40, 'x') + 'y', /contains a tab at character/],
    [`${KEY}\u0007`, /contains a control character at character 36/],
    [`${KEY}é`, /contains a non-ASCII character at character 36/],
    ['k'.repeat(513), /^API key is too long: 513 characters, at most 512\. Check that only the key was pasted\.$/],
  ])('refuses an invalid API key without echoing it (%#)', async (bad, message) => {
    const chain = memoryKeychain();
    const err = await rejection(new ProjectKeys(chain).setApiKey(1, bad));
    expect(err.code).toBe('InvalidArguments');
    expect(err.message).toMatch(message);
    if (bad.trim() !== '') expect(err.message).not.toContain(bad.trim().slice(0, 8));
    expect(chain.entries.size).toBe(0);
  });

  it('validates HMAC keys the same way and accepts 512 characters', async () => {
    const keys = new ProjectKeys(memoryKeychain());
    const err = await rejection(keys.setHmacKey(1, `${HMAC} x`));
    expect(err.message).toMatch(/^HMAC key contains a space/);
    expect(err.message).not.toContain(HMAC);
    await keys.setHmacKey(1, 'h'.repeat(512));
    expect(await keys.getHmacKey(1)).toHaveLength(512);
  });
});

describe('resolveApiKey', () => {
  const stored = async () => {
    const keys = new ProjectKeys(memoryKeychain());
    await keys.setApiKey(3, 'ei_from_keychain');
    return keys;
  };

  it('prefers --api-key, then CAPTURE_DESK_API_KEY, then the keychain', async () => {
    const keys = await stored();
    const env = { CAPTURE_DESK_API_KEY: ' ei_from_env ' };
    expect(await resolveApiKey({ flag: 'ei_from_flag', env, projectId: 3, keys })).toEqual({ key: 'ei_from_flag', source: 'flag' });
    expect(await resolveApiKey({ env, projectId: 3, keys })).toEqual({ key: 'ei_from_env', source: 'env' });
    expect(await resolveApiKey({ env: {}, projectId: 3, keys })).toEqual({ key: 'ei_from_keychain', source: 'keychain' });
    // an empty variable counts as unset (`CAPTURE_DESK_API_KEY= capture-desk …`)
    expect(await resolveApiKey({ env: { CAPTURE_DESK_API_KEY: '' }, projectId: 3, keys })).toMatchObject({ source: 'keychain' });
  });

  it('checks keys given by flag or environment and names where the bad one came from', async () => {
    const flagErr = await rejection(resolveApiKey({ flag: '', env: {}, projectId: 3 }));
    expect(flagErr).toMatchObject({ code: 'InvalidArguments', message: 'The API key given with --api-key is empty.' });
    const envErr = await rejection(resolveApiKey({ env: { CAPTURE_DESK_API_KEY: 'ei_a b' }, projectId: 3 }));
    expect(envErr.message).toMatch(/^The API key in CAPTURE_DESK_API_KEY contains a space at character 5/);
    expect(envErr.message).not.toContain('ei_a');
  });

  it('says what to do when there is no key anywhere', async () => {
    const none = await rejection(resolveApiKey({ env: {}, projectId: 4, keys: await stored() }));
    expect(none.code).toBe('Unauthorized');
    expect(none.message).toBe(
      'No API key for project 4: none is stored in the keychain, and neither --api-key nor CAPTURE_DESK_API_KEY is set. ' +
        'Set one in Settings, pass --api-key or set CAPTURE_DESK_API_KEY.',
    );
    const noKeychain = await rejection(resolveApiKey({ env: {}, projectId: null }));
    expect(noKeychain.message).toBe(
      'No API key for the default project: neither --api-key nor CAPTURE_DESK_API_KEY is set. ' +
        'Set one in Settings, pass --api-key or set CAPTURE_DESK_API_KEY.',
    );
  });

  it('says both that no key was given and that the keychain is unavailable', async () => {
    const keys = new ProjectKeys(keytarKeychain({ load: failingKeytar('Cannot autolaunch D-Bus without X11 $DISPLAY'), platform: 'linux' }));
    const err = await rejection(resolveApiKey({ env: {}, projectId: 9, keys }));
    expect(err.code).toBe('Unauthorized');
    expect(err.message).toBe(
      'No API key for project 9: neither --api-key nor CAPTURE_DESK_API_KEY is set, and the keychain could not be read. ' +
        'No keychain (Secret Service) is available: there is no D-Bus session bus ' +
        '(Cannot autolaunch D-Bus without X11 $DISPLAY). Install and unlock GNOME Keyring or KWallet, or pass the key ' +
        'with --api-key / CAPTURE_DESK_API_KEY for this run. No stored key was read.',
    );
    expect(err.details).toEqual({ keychain: 'unavailable', reason: 'no-session-bus' });
    // …and a flag still works without the keychain
    expect(await resolveApiKey({ flag: KEY, env: {}, projectId: 9, keys })).toEqual({ key: KEY, source: 'flag' });
  });

  it('names the way around it for the key that was asked for: --hmac-key for the signing key', async () => {
    const keys = new ProjectKeys(keytarKeychain({ load: failingKeytar('Cannot autolaunch D-Bus without X11 $DISPLAY'), platform: 'linux' }));
    const err = await rejection(keys.getHmacKey(9));
    expect(err.message).toMatch(/Install and unlock GNOME Keyring or KWallet, or pass the key with --hmac-key for this run\. No stored key was read\.$/);
    expect(err.message).not.toContain('--api-key');
  });
});

describe('keytarKeychain', () => {
  it('talks to keytar under the service "capture-desk" and loads it once, on first use', async () => {
    const store = new Map<string, string>();
    let loads = 0;
    const chain = keytarKeychain({
      load: async () => {
        loads += 1;
        return {
          getPassword: async (s, a) => store.get(`${s}/${a}`) ?? null,
          setPassword: async (s, a, p) => void store.set(`${s}/${a}`, p),
          deletePassword: async (s, a) => store.delete(`${s}/${a}`),
        };
      },
    });
    expect(loads).toBe(0);
    await chain.set('project:1:api-key', KEY);
    expect(store.get(`${KEYCHAIN_SERVICE}/project:1:api-key`)).toBe(KEY);
    expect(await chain.get('project:1:api-key')).toBe(KEY);
    expect(await chain.delete('project:1:api-key')).toBe(true);
    expect(await chain.get('project:1:api-key')).toBeNull();
    expect(loads).toBe(1);
  });

  // What libsecret / keytar say on Linux, as measured on Debian 12 with gnome-keyring 42.
  it.each([
    ['Cannot autolaunch D-Bus without X11 $DISPLAY', 'no-session-bus',
      'No keychain (Secret Service) is available: there is no D-Bus session bus (Cannot autolaunch D-Bus without X11 $DISPLAY). Install and unlock GNOME Keyring or KWallet, or pass the key with --api-key / CAPTURE_DESK_API_KEY for this run. The key was not stored.'],
    ['The name org.freedesktop.secrets was not provided by any .service files', 'no-provider',
      'No keychain (Secret Service) is available: nothing provides the Secret Service on the D-Bus session bus (The name org.freedesktop.secrets was not provided by any .service files). Install and unlock GNOME Keyring or KWallet, or pass the key with --api-key / CAPTURE_DESK_API_KEY for this run. The key was not stored.'],
    ['Object does not exist at path “/org/freedesktop/secrets/collection/login”', 'no-keyring',
      'No keychain (Secret Service) is available: it has no default keyring and could not create one (Object does not exist at path “/org/freedesktop/secrets/collection/login”). Install and unlock GNOME Keyring or KWallet, or pass the key with --api-key / CAPTURE_DESK_API_KEY for this run. The key was not stored.'],
    ['Cannot create an item in a locked collection', 'locked',
      'The keychain (Secret Service) is locked (Cannot create an item in a locked collection). Unlock your keyring (GNOME Keyring or KWallet), or pass the key with --api-key / CAPTURE_DESK_API_KEY for this run. The key was not stored.'],
    ['Prompt was dismissed', 'declined',
      'Access to the keychain (Secret Service) was declined (Prompt was dismissed). Unlock your keyring (GNOME Keyring or KWallet) and allow Capture Desk to use it, or pass the key with --api-key / CAPTURE_DESK_API_KEY for this run. The key was not stored.'],
    ['Something new went wrong.', 'failed',
      'The keychain (Secret Service) refused the request (Something new went wrong). Unlock your keyring (GNOME Keyring or KWallet) and try again, or pass the key with --api-key / CAPTURE_DESK_API_KEY for this run. The key was not stored.'],
  ])('maps "%s" to Unavailable (%s) with a message that says what to do', async (raw, reason, message) => {
    expect(classifyKeychainError(raw)).toBe(reason);
    const err = await rejection(keytarKeychain({ load: failingKeytar(raw), platform: 'linux' }).set('project:1:api-key', KEY));
    expect(err.code).toBe('Unavailable');
    expect(err.message).toBe(message);
    expect(err.details).toEqual({ keychain: 'unavailable', reason });
  });

  it('words get and delete failures for what they did', async () => {
    const chain = keytarKeychain({ load: failingKeytar('Cannot create an item in a locked collection'), platform: 'linux' });
    expect((await rejection(chain.get('a'))).message).toMatch(/for this run\. No stored key was read\.$/);
    expect((await rejection(chain.delete('a'))).message).toBe(
      'The keychain (Secret Service) is locked (Cannot create an item in a locked collection). Unlock your keyring (GNOME Keyring or KWallet). The key was not removed.',
    );
  });

  it('reports a module that does not load as Unavailable, and tries loading again next time', async () => {
    let loads = 0;
    const chain = keytarKeychain({
      platform: 'linux',
      load: async () => {
        loads += 1;
        throw new Error('libsecret-1.so.0: cannot open shared object file: No such file or directory');
      },
    });
    const err = await rejection(chain.set('a', KEY));
    expect(err).toMatchObject({ code: 'Unavailable', details: { keychain: 'unavailable', reason: 'module-load' } });
    expect(err.message).toBe(
      'The keychain (Secret Service) cannot be used: its native module (keytar) did not load (libsecret-1.so.0: cannot open ' +
        'shared object file: No such file or directory). Reinstall Capture Desk (it needs libsecret-1-0), or pass the key with ' +
        '--api-key / CAPTURE_DESK_API_KEY for this run. The key was not stored.',
    );
    await rejection(chain.get('a'));
    expect(loads).toBe(2);
  });

  it('never lets the secret into a message, even when the keychain echoes it', async () => {
    const err = await rejection(keytarKeychain({ load: failingKeytar(`bad password "${KEY}"`), platform: 'linux' }).set('a', KEY));
    expect(err.message).not.toContain(KEY);
    expect(err.message).toContain('«redacted»');
  });

  it('refuses to call a key stored when the keychain did not keep it', async () => {
    // libsecret reports success when an unlock prompt is dismissed; nothing is stored.
    const chain = keytarKeychain({
      platform: 'linux',
      load: async () => ({ getPassword: async () => null, setPassword: async () => {}, deletePassword: async () => false }),
    });
    const err = await rejection(chain.set('a', KEY));
    expect(err).toMatchObject({ code: 'Unavailable', details: { reason: 'not-kept' } });
    expect(err.message).toBe(
      'The keychain (Secret Service) accepted the key but did not keep it (an unlock prompt may have been dismissed). ' +
        'Unlock your keyring (GNOME Keyring or KWallet) and try again, or pass the key with --api-key / CAPTURE_DESK_API_KEY ' +
        'for this run. The key was not stored.',
    );
  });

  it('gives up on a keychain that does not answer', async () => {
    const never = () => new Promise<never>(() => {});
    const chain = keytarKeychain({
      platform: 'linux',
      timeoutMs: 50,
      load: async () => ({ getPassword: never, setPassword: never, deletePassword: never }),
    });
    const err = await rejection(chain.set('a', KEY));
    expect(err).toMatchObject({ code: 'Unavailable', details: { reason: 'timeout' } });
    expect(err.message).toBe(
      'The keychain (Secret Service) did not answer within 50 ms (an unlock prompt may be waiting). Unlock your keyring ' +
        '(GNOME Keyring or KWallet) and try again, or pass the key with --api-key / CAPTURE_DESK_API_KEY for this run. ' +
        'The key may not have been stored.',
    );
  });

  it('words messages for macOS and Windows too', async () => {
    const mac = await rejection(keytarKeychain({ load: failingKeytar('User interaction is not allowed.'), platform: 'darwin' }).get('a'));
    expect(mac.message).toBe(
      'Access to the macOS Keychain was declined (User interaction is not allowed). Unlock your login keychain and allow ' +
        'Capture Desk to use it, or pass the key with --api-key / CAPTURE_DESK_API_KEY for this run. No stored key was read.',
    );
    const win = await rejection(keytarKeychain({ load: failingKeytar('Element not found.'), platform: 'win32' }).set('a', KEY));
    expect(win.message).toMatch(/^The Windows Credential Manager refused the request \(Element not found\)\./);
  });
});

describe('redactSecrets', () => {
  it('replaces every occurrence, also URL-encoded and JSON-escaped', () => {
    const odd = 'ei_a/b"c';
    const text = `key=${KEY} again ${KEY}; url ?k=${encodeURIComponent(odd)} json ${JSON.stringify({ k: odd })}`;
    expect(redactSecrets(text, [KEY, odd, null, undefined, ''])).toBe(
      'key=«redacted» again «redacted»; url ?k=«redacted» json {"k":"«redacted»"}',
    );
  });

  it('replaces a secret that contains another one whole, and leaves text without secrets alone', () => {
    expect(redactSecrets('x ei_abcdef y', ['ei_abc', 'ei_abcdef'])).toBe('x «redacted» y');
    expect(redactSecrets('nothing here (a+b)*', ['(a+b)*'])).toBe('nothing here «redacted»');
    expect(redactSecrets('plain', [])).toBe('plain');
  });
});
