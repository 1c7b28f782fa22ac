import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { KeyKind } from '../core/secrets/project-keys.js';
import { API_KEY_ENV, checkKey, HMAC_KEY_ENV } from '../core/secrets/project-keys.js';
import type { HeldKey } from '../core/secrets/overlay-keychain.js';
import { UsageError } from './args.js';

export interface ServeKeyFlags {
  apiKey?: string | undefined;
  hmacKey?: string | undefined;
  apiKeyFile?: string | undefined;
}

/**
 * The project's keys `serve` was given, by kind: `--api-key`, else `--api-key-file`, else
 * CAPTURE_DESK_API_KEY (and `--hmac-key`, else CAPTURE_DESK_HMAC_KEY). They are held in memory
 * for the run (see overlay-keychain.ts) and never written anywhere. A key file must be a regular
 * file only its owner can read or write: a key others can read is no longer the project's secret.
 */
export async function serveKeys(flags: ServeKeyFlags, env: NodeJS.ProcessEnv = process.env): Promise<Map<KeyKind, HeldKey>> {
  const held = new Map<KeyKind, HeldKey>();
  if (flags.apiKey !== undefined && flags.apiKeyFile !== undefined) throw new UsageError('give the API key once: --api-key or --api-key-file, not both.');
  const api =
    flags.apiKey !== undefined
      ? { secret: check('The API key given with --api-key', flags.apiKey), origin: { from: 'flag', name: '--api-key' } as const }
      : flags.apiKeyFile !== undefined
        ? { secret: await readKeyFile(flags.apiKeyFile), origin: { from: 'file', name: resolve(flags.apiKeyFile) } as const }
        : fromEnv(env, API_KEY_ENV, 'API key');
  if (api) held.set('api-key', api);
  const hmac =
    flags.hmacKey !== undefined
      ? { secret: check('The HMAC key given with --hmac-key', flags.hmacKey), origin: { from: 'flag', name: '--hmac-key' } as const }
      : fromEnv(env, HMAC_KEY_ENV, 'HMAC key');
  if (hmac) held.set('hmac-key', hmac);
  return held;
}

function fromEnv(env: NodeJS.ProcessEnv, name: string, what: string): HeldKey | null {
  const value = env[name];
  if (value === undefined || value.trim() === '') return null;
  return { secret: check(`The ${what} in ${name}`, value), origin: { from: 'environment', name } };
}

function check(label: string, value: string): string {
  try {
    return checkKey(label, value);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

async function readKeyFile(path: string): Promise<string> {
  let s;
  try {
    s = await stat(path);
  } catch (err) {
    throw new UsageError(`--api-key-file ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}.`);
  }
  if (!s.isFile()) throw new UsageError(`--api-key-file ${path} is not a regular file.`);
  // Windows has no owner-only mode bits to check; its ACLs are the user's to set.
  if (process.platform !== 'win32') {
    if ((s.mode & 0o077) !== 0) {
      throw new UsageError(
        `--api-key-file ${path} can be read or written by others (mode ${(s.mode & 0o777).toString(8).padStart(3, '0')}): ` +
          `make it owner-only with "chmod 600 ${path}", then start again.`,
      );
    }
    if (typeof process.getuid === 'function' && s.uid !== process.getuid()) {
      throw new UsageError(`--api-key-file ${path} belongs to another user (uid ${s.uid}): the key file must be your own.`);
    }
  }
  if (s.size > 4096) throw new UsageError(`--api-key-file ${path} is ${s.size} bytes: a key file holds only the key.`);
  return check(`The API key in ${path}`, await readFile(path, 'utf8'));
}
