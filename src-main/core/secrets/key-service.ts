import type { KeyStatus } from '../contract/contract.js';
import { CoreError } from '../errors.js';
import type { KeyKind, ProjectKeys } from './project-keys.js';

/**
 * What the UI may know about keys: set or not set, where each comes from, and why the keychain
 * cannot be used. Each key is asked for on its own: a key held in memory for this run (from the
 * environment, a flag or a key file) is "set" even on a computer without a keychain. The keys
 * themselves never leave the core.
 */
export async function keyStatus(keys: ProjectKeys, projectId: number | null): Promise<KeyStatus> {
  const one = async (kind: KeyKind) => {
    const source = keys.source(projectId, kind);
    try {
      const key = kind === 'api-key' ? await keys.getApiKey(projectId) : await keys.getHmacKey(projectId);
      return { state: key === null ? ('not set' as const) : ('set' as const), source, problem: null };
    } catch (err) {
      if (err instanceof CoreError && err.code === 'Unavailable') return { state: 'unknown' as const, source, problem: err.message };
      throw err;
    }
  };
  const [api, hmac] = await Promise.all([one('api-key'), one('hmac-key')]);
  return {
    apiKey: api.state,
    hmacKey: hmac.state,
    keychainProblem: api.problem ?? hmac.problem,
    apiKeySource: api.source,
    hmacKeySource: hmac.source,
  };
}
