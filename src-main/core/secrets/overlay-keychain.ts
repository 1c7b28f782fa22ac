import type { Keychain } from './keychain.js';

/**
 * A keychain that answers some accounts from memory and every other one from `base`: how a
 * command given `--api-key` / `--hmac-key` (or their environment variables) hands those keys to
 * the core for one run without writing them anywhere. Keys in the overlay are never passed to
 * `base`: `set` on such an account changes the value for this run only, and `delete` forgets it
 * here as well as removing whatever `base` holds under that account.
 */
export function overlayKeychain(base: Keychain, overlay: ReadonlyMap<string, string>): Keychain {
  const mem = new Map(overlay);
  return {
    get: async (account) => (mem.has(account) ? mem.get(account)! : base.get(account)),
    set: async (account, secret) => {
      if (mem.has(account)) mem.set(account, secret);
      else await base.set(account, secret);
    },
    delete: async (account) => {
      const had = mem.delete(account);
      return (await base.delete(account)) || had;
    },
  };
}
