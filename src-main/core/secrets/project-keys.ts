import type { KeySource } from '../contract/contract.js';
import { CoreError } from '../errors.js';
import type { Keychain } from './keychain.js';
import type { KnownSecrets } from './known-secrets.js';

/** The platform's numeric project ID; null while none is chosen (keys then go to the "default" account). */
export type ProjectId = number | null;
export type KeyKind = 'api-key' | 'hmac-key';
export type KeyState = 'set' | 'not set';
/** All the renderer ever learns about a project's keys. */
export interface KeyStatus {
  apiKey: KeyState;
  hmacKey: KeyState;
}

export const MAX_KEY_LENGTH = 512;
export const API_KEY_ENV = 'CAPTURE_DESK_API_KEY';
export const HMAC_KEY_ENV = 'CAPTURE_DESK_HMAC_KEY';

/** `project:<projectId>:api-key`, `project:default:hmac-key`, … */
export function projectAccount(projectId: ProjectId, kind: KeyKind): string {
  if (projectId !== null && !(Number.isSafeInteger(projectId) && projectId > 0)) {
    throw new CoreError('InvalidArguments', 'Project ID must be a positive whole number (or none).', { field: 'projectId' });
  }
  return `project:${projectId ?? 'default'}:${kind}`;
}

/**
 * Checks a pasted key and returns it trimmed. Keys are printable ASCII without whitespace, at most
 * {@link MAX_KEY_LENGTH} characters. Messages say what is wrong and where, never what the key is.
 */
export function checkKey(label: string, value: unknown): string {
  if (typeof value !== 'string') throw invalid(`${label} must be text.`);
  const key = value.trim();
  if (key === '') throw invalid(`${label} is empty.`);
  let position = 0;
  for (const ch of key) {
    position += 1;
    const code = ch.codePointAt(0) ?? 0;
    if (code < 0x21 || code > 0x7e) {
      throw invalid(
        `${label} contains ${describe(ch, code)} at character ${position}; a key is printable ASCII with no spaces or ` +
          'line breaks. Check that only the key was pasted.',
      );
    }
  }
  if (position > MAX_KEY_LENGTH) {
    throw invalid(`${label} is too long: ${position} characters, at most ${MAX_KEY_LENGTH}. Check that only the key was pasted.`);
  }
  return key;
}

function describe(ch: string, code: number): string {
  if (ch === ' ' || ch === '\u00a0') return 'a space';
  if (ch === '\t') return 'a tab';
  if (ch === '\n' || ch === '\r') return 'a line break';
  if (code < 0x20 || code === 0x7f) return 'a control character';
  return 'a non-ASCII character';
}

function invalid(message: string): CoreError {
  return new CoreError('InvalidArguments', message);
}

/** A project's API key and HMAC key, kept in the keychain and nowhere else. */
export class ProjectKeys {
  readonly #keychain: Keychain;
  readonly #known: KnownSecrets | undefined;

  /** `known` learns every key read or stored, so the app's logger can redact it. */
  constructor(keychain: Keychain, known?: KnownSecrets) {
    this.#keychain = keychain;
    this.#known = known;
  }

  async setApiKey(projectId: ProjectId, key: string): Promise<void> {
    return this.#set(projectId, 'api-key', checkKey('API key', key));
  }
  async getApiKey(projectId: ProjectId): Promise<string | null> {
    return this.#get(projectId, 'api-key');
  }
  async clearApiKey(projectId: ProjectId): Promise<boolean> {
    return this.#keychain.delete(projectAccount(projectId, 'api-key'));
  }

  async setHmacKey(projectId: ProjectId, key: string): Promise<void> {
    return this.#set(projectId, 'hmac-key', checkKey('HMAC key', key));
  }
  async getHmacKey(projectId: ProjectId): Promise<string | null> {
    return this.#get(projectId, 'hmac-key');
  }
  async clearHmacKey(projectId: ProjectId): Promise<boolean> {
    return this.#keychain.delete(projectAccount(projectId, 'hmac-key'));
  }

  /** Whether each key is stored. Throws `CoreError('Unavailable')` when the keychain cannot be read. */
  async status(projectId: ProjectId): Promise<KeyStatus> {
    const [apiKey, hmacKey] = await Promise.all([this.getApiKey(projectId), this.getHmacKey(projectId)]);
    return { apiKey: apiKey === null ? 'not set' : 'set', hmacKey: hmacKey === null ? 'not set' : 'set' };
  }

  /** Where the key comes from: the keychain, or memory for this run (and how it got there). */
  source(projectId: ProjectId, kind: KeyKind): KeySource {
    const held = this.#keychain.origin?.(projectAccount(projectId, kind)) ?? null;
    return held === null ? { from: 'keychain', name: null, stored: true } : { from: held.from, name: held.name, stored: false };
  }

  async #get(projectId: ProjectId, kind: KeyKind): Promise<string | null> {
    const key = await this.#keychain.get(projectAccount(projectId, kind));
    this.#known?.add(key);
    return key;
  }

  async #set(projectId: ProjectId, kind: KeyKind, key: string): Promise<void> {
    // Known before it is stored: a failing keychain's error text must not carry it into a log either.
    this.#known?.add(key);
    return this.#keychain.set(projectAccount(projectId, kind), key);
  }
}

export type ApiKeySource = 'flag' | 'env' | 'keychain';

export interface ResolveApiKeyOptions {
  /** `--api-key` as given on the command line, if it was. */
  flag?: string | undefined;
  /** Where CAPTURE_DESK_API_KEY is read from. Default `process.env`. An empty value counts as unset. */
  env?: NodeJS.ProcessEnv;
  projectId: ProjectId;
  /** The keychain to fall back on; without it only the flag and the environment are looked at. */
  keys?: ProjectKeys | undefined;
}

/** The API key to use: `--api-key`, then CAPTURE_DESK_API_KEY, then the keychain. */
export async function resolveApiKey(opts: ResolveApiKeyOptions): Promise<{ key: string; source: ApiKeySource }> {
  if (opts.flag !== undefined) return { key: checkKey('The API key given with --api-key', opts.flag), source: 'flag' };
  const fromEnv = (opts.env ?? process.env)[API_KEY_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== '') {
    return { key: checkKey(`The API key in ${API_KEY_ENV}`, fromEnv), source: 'env' };
  }

  const project = opts.projectId === null ? 'the default project' : `project ${opts.projectId}`;
  const todo = `Set one in Settings, pass --api-key or set ${API_KEY_ENV}.`;
  if (opts.keys === undefined) {
    throw new CoreError('Unauthorized', `No API key for ${project}: neither --api-key nor ${API_KEY_ENV} is set. ${todo}`);
  }
  let stored: string | null;
  try {
    stored = await opts.keys.getApiKey(opts.projectId);
  } catch (err) {
    if (!(err instanceof CoreError) || err.code !== 'Unavailable') throw err;
    throw new CoreError(
      'Unauthorized',
      `No API key for ${project}: neither --api-key nor ${API_KEY_ENV} is set, and the keychain could not be read. ${err.message}`,
      err.details,
    );
  }
  if (stored === null) {
    throw new CoreError(
      'Unauthorized',
      `No API key for ${project}: none is stored in the keychain, and neither --api-key nor ${API_KEY_ENV} is set. ${todo}`,
    );
  }
  return { key: stored, source: 'keychain' };
}
