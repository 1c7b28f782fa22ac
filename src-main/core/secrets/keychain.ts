import type { KeySource } from '../contract/contract.js';
import { CoreError } from '../errors.js';
import { classifyKeychainError, keychainUnavailable, type KeychainOp } from './keychain-errors.js';

/** Every secret Capture Desk keeps is filed under this service name in the OS keychain. */
export const KEYCHAIN_SERVICE = 'capture-desk';

/**
 * The seam between the app and the OS keychain (service {@link KEYCHAIN_SERVICE}). Implementations
 * either do what was asked or throw `CoreError('Unavailable')` saying why and what to do; none of
 * them ever falls back to storing a secret anywhere else.
 */
export interface Keychain {
  get(account: string): Promise<string | null>;
  set(account: string, secret: string): Promise<void>;
  /** True if something was removed. */
  delete(account: string): Promise<boolean>;
  /**
   * Where the answer for `account` comes from when it is not the keychain itself (a key held in
   * memory for this run, see overlay-keychain.ts); null or absent: the keychain.
   */
  origin?(account: string): Pick<KeySource, 'from' | 'name'> | null;
}

/** The part of keytar we use; tests hand in fakes through {@link KeytarKeychainOptions.load}. */
export interface KeytarLike {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
}

export interface KeytarKeychainOptions {
  /** Loads keytar. Defaults to `import('keytar')`, done on first use so a broken native module cannot stop the app starting. */
  load?: () => Promise<KeytarLike>;
  /**
   * How long one call may take. A desktop keychain may show an unlock prompt and wait for the
   * user, so this is long enough for a person to type a password. Default 60 s.
   */
  timeoutMs?: number;
  /** Chooses the wording of error messages. Default `process.platform`. */
  platform?: NodeJS.Platform;
}

export const DEFAULT_KEYCHAIN_TIMEOUT_MS = 60_000;

/** The OS keychain through keytar: Secret Service on Linux, Keychain on macOS, Credential Manager on Windows. */
export function keytarKeychain(options: KeytarKeychainOptions = {}): Keychain {
  const load = options.load ?? loadKeytar;
  const timeoutMs = options.timeoutMs ?? DEFAULT_KEYCHAIN_TIMEOUT_MS;
  const platform = options.platform ?? process.platform;
  let keytar: Promise<KeytarLike> | undefined;

  async function attempt<T>(op: KeychainOp, account: string, secret: string | undefined, call: (k: KeytarLike) => Promise<T>): Promise<T> {
    let k: KeytarLike;
    try {
      keytar ??= load();
      k = await keytar;
    } catch (err) {
      keytar = undefined; // try again next time; the failure is reported now
      throw keychainUnavailable({ op, reason: 'module-load', raw: messageOf(err), platform, secret, account });
    }
    try {
      return await call(k);
    } catch (err) {
      if (err instanceof CoreError) throw err;
      const raw = messageOf(err);
      throw keychainUnavailable({ op, reason: classifyKeychainError(raw), raw, platform, secret, account });
    }
  }

  async function run<T>(op: KeychainOp, account: string, secret: string | undefined, call: (k: KeytarLike) => Promise<T>): Promise<T> {
    if (typeof account !== 'string' || account === '') {
      throw new CoreError('InvalidArguments', 'Keychain account name is empty.');
    }
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(keychainUnavailable({ op, reason: 'timeout', platform, timeoutMs, account })), timeoutMs);
      timer.unref(); // a stuck keychain call must not be what keeps the process alive
    });
    try {
      return await Promise.race([attempt(op, account, secret, call), timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    get: (account) => run('get', account, undefined, (k) => k.getPassword(KEYCHAIN_SERVICE, account)),
    set: (account, secret) =>
      run('set', account, secret, async (k) => {
        await k.setPassword(KEYCHAIN_SERVICE, account, secret);
        // libsecret reports success when an unlock prompt is dismissed without storing anything:
        // read the key back so "stored" is never said of a key that was not.
        if ((await k.getPassword(KEYCHAIN_SERVICE, account)) !== secret) {
          throw keychainUnavailable({ op: 'set', reason: 'not-kept', platform, secret, account });
        }
      }),
    delete: (account) => run('delete', account, undefined, (k) => k.deletePassword(KEYCHAIN_SERVICE, account)),
  };
}

async function loadKeytar(): Promise<KeytarLike> {
  // keytar is CommonJS: under ESM its functions sit on `default` (only some are detected as named exports).
  const mod = (await import('keytar')) as Partial<KeytarLike> & { default?: Partial<KeytarLike> };
  const k = mod.default ?? mod;
  if (typeof k.getPassword !== 'function' || typeof k.setPassword !== 'function' || typeof k.deletePassword !== 'function') {
    throw new Error('the keytar module does not export getPassword, setPassword and deletePassword');
  }
  return k as KeytarLike;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A keychain in memory, for tests of modules that keep secrets. `entries` shows what was stored. */
export function memoryKeychain(initial: Record<string, string> = {}): Keychain & { readonly entries: ReadonlyMap<string, string> } {
  const entries = new Map(Object.entries(initial));
  return {
    entries,
    get: async (account) => entries.get(account) ?? null,
    set: async (account, secret) => void entries.set(account, secret),
    delete: async (account) => entries.delete(account),
  };
}
