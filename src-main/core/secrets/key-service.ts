import type { KeyStatus } from '../contract.js';
import { CoreError } from '../errors.js';
import type { ProjectKeys } from './project-keys.js';

/**
 * What the UI may know about keys: set or not set, and why the keychain cannot be used.
 * The keys themselves never leave the core.
 */
export async function keyStatus(keys: ProjectKeys, projectId: number | null): Promise<KeyStatus> {
  try {
    const s = await keys.status(projectId);
    return { apiKey: s.apiKey, hmacKey: s.hmacKey, keychainProblem: null };
  } catch (err) {
    if (err instanceof CoreError && err.code === 'Unavailable') return { apiKey: 'unknown', hmacKey: 'unknown', keychainProblem: err.message };
    throw err;
  }
}
