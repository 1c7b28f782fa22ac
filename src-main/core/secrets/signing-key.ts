import type { Logger } from '../log.js';

/**
 * What a sample saved unsigned because the project's HMAC key could not be read says about it:
 * one wording for every path that records (a session, a failed start, an AT board, recovery).
 * No existing operation signs an unsigned sample afterwards (crop and split sign only what was
 * signed), so recording again is the only way to signed data.
 */
export function unsignedBecause(err: unknown): string {
  const why = err instanceof Error ? err.message : String(err);
  return `saved unsigned: the project's HMAC key could not be read (${why.replace(/\.$/, '')}); unlock or fix the keychain, then record again if the project needs signed data`;
}

export interface SigningKey {
  /** undefined: sign nothing (no key is set, or it could not be read). */
  key: string | undefined;
  /** Set when the key exists but could not be read: say it wherever the sample is reported. */
  unsigned: string | null;
}

/**
 * Reads the project's HMAC key for signing. A key that cannot be read (keychain locked, D-Bus
 * down, a corrupt entry) never stops a sample from being saved: it is saved unsigned, and that is
 * logged here and returned for the caller to show. The key itself is never logged.
 */
export async function readSigningKey(hmacKey: () => Promise<string | undefined>, log: Logger, what: string): Promise<SigningKey> {
  try {
    return { key: await hmacKey(), unsigned: null };
  } catch (err) {
    log.warn('the project\'s HMAC key could not be read; saving unsigned', { what, error: err instanceof Error ? err.message : String(err) });
    return { key: undefined, unsigned: unsignedBecause(err) };
  }
}
