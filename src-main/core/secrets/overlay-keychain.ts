import type { KeySource } from '../contract/contract.js';
import type { Keychain } from './keychain.js';

/** Where a key held in memory came from: the page says it ("from the environment, not stored"). */
export type KeyOrigin = Pick<KeySource, 'from' | 'name'> & { from: Exclude<KeySource['from'], 'keychain'> };

/** A key held in memory for this run; null once cleared (the keychain is still not asked for it). */
export interface HeldKey {
  secret: string | null;
  origin: KeyOrigin;
}

export interface OverlayOptions {
  /**
   * Which overlay entry answers for a keychain account (default: the account itself). `serve`
   * files its keys by kind (`api-key`, `hmac-key`) so they answer for whichever project Settings
   * names, as `--api-key` / CAPTURE_DESK_API_KEY do for the other commands.
   */
  slot?: (account: string) => string;
}

/** Typed in through `keys.set` over a key held in memory: for this run only, like the one it replaced. */
const SESSION: KeyOrigin = { from: 'session', name: null };

/**
 * A keychain that answers some accounts from memory and every other one from `base`: how a
 * command given `--api-key` / `--hmac-key` (or their environment variables, or a key file) hands
 * those keys to the core for one run without writing them anywhere. Accounts in the overlay are
 * never passed to `base`, for the whole run: `set` on such an account replaces the value for this
 * run only, and `delete` forgets it here (it then reads as not set; the keychain is not asked).
 * `origin` says where an account's answer comes from (null: from `base`).
 */
export function overlayKeychain(base: Keychain, overlay: ReadonlyMap<string, string | HeldKey>, options: OverlayOptions = {}): Keychain {
  const slot = options.slot ?? ((account: string) => account);
  const mem = new Map<string, HeldKey>([...overlay].map(([k, v]) => [k, typeof v === 'string' ? { secret: v, origin: SESSION } : { ...v }]));
  return {
    get: async (account) => {
      const held = mem.get(slot(account));
      return held ? held.secret : base.get(account);
    },
    set: async (account, secret) => {
      const s = slot(account);
      if (mem.has(s)) mem.set(s, { secret, origin: SESSION });
      else await base.set(account, secret);
    },
    delete: async (account) => {
      const held = mem.get(slot(account));
      if (!held) return base.delete(account);
      mem.set(slot(account), { secret: null, origin: SESSION });
      return held.secret !== null;
    },
    origin: (account) => mem.get(slot(account))?.origin ?? null,
  };
}
