import { CoreError } from '../errors.js';
import { redactSecrets } from './redact.js';

export type KeychainOp = 'get' | 'set' | 'delete';

/** Why the keychain could not be used; travels in `CoreError.details` so the UI need not parse text. */
export type KeychainUnavailableReason =
  | 'no-session-bus' // Linux: no D-Bus session bus to reach the Secret Service on
  | 'no-provider' // Linux: nothing owns org.freedesktop.secrets
  | 'no-keyring' // Linux: the provider has no default collection and could not create one
  | 'locked'
  | 'declined' // the user (or a prompt that could not be shown) said no
  | 'not-kept' // the keychain accepted the key but did not keep it
  | 'module-load' // keytar's native module did not load
  | 'timeout'
  | 'failed';

export interface KeychainUnavailableDetails {
  keychain: 'unavailable';
  reason: KeychainUnavailableReason;
}

/** Sorts a keytar/libsecret/Keychain Services error text into a reason. Order matters. */
export function classifyKeychainError(raw: string): KeychainUnavailableReason {
  if (/autolaunch D-Bus|DBUS_SESSION_BUS_ADDRESS|Could not connect|Failed to connect to socket/i.test(raw)) {
    return 'no-session-bus';
  }
  if (/Object does not exist at path|No such object path|collection\/login/i.test(raw)) return 'no-keyring';
  if (/org\.freedesktop\.secrets|ServiceUnknown|not provided by any \.service/i.test(raw)) return 'no-provider';
  if (/locked/i.test(raw)) return 'locked';
  if (/dismiss|cancel|denied|declin|not allowed/i.test(raw)) return 'declined';
  return 'failed';
}

interface Wording {
  name: string; // "keychain (Secret Service)"
  install: string; // what to do when there is no keychain at all
  unlock: string; // what to do when it is there but locked
}

function wording(platform: NodeJS.Platform): Wording {
  switch (platform) {
    case 'darwin':
      return { name: 'macOS Keychain', install: 'Check your login keychain in Keychain Access', unlock: 'Unlock your login keychain' };
    case 'win32':
      return {
        name: 'Windows Credential Manager',
        install: 'Check that Windows Credential Manager is available to your account',
        unlock: 'Sign in to Windows with your own account',
      };
    default:
      return {
        name: 'keychain (Secret Service)',
        install: 'Install and unlock GNOME Keyring or KWallet',
        unlock: 'Unlock your keyring (GNOME Keyring or KWallet)',
      };
  }
}

export interface UnavailableFacts {
  op: KeychainOp;
  reason: KeychainUnavailableReason;
  /** The underlying error text; redacted against `secret` and shortened before use. */
  raw?: string;
  platform: NodeJS.Platform;
  /** The secret being stored, if any: never allowed into the message. */
  secret?: string | undefined;
  timeoutMs?: number;
  /** The keychain account (`project:<id>:api-key` / `:hmac-key`): the way around it depends on the key. */
  account?: string;
}

/** `CoreError('Unavailable', '<what happened>. <what to do>. <what became of the key>.')` */
export function keychainUnavailable(f: UnavailableFacts): CoreError {
  const w = wording(f.platform);
  const raw = f.raw === undefined ? '' : ` (${tidy(redactSecrets(f.raw, [f.secret]))})`;
  let what: string;
  let todo: string;
  switch (f.reason) {
    case 'no-session-bus':
      what = `No ${w.name} is available: there is no D-Bus session bus${raw}`;
      todo = w.install;
      break;
    case 'no-provider':
      what = `No ${w.name} is available: nothing provides the Secret Service on the D-Bus session bus${raw}`;
      todo = w.install;
      break;
    case 'no-keyring':
      what = `No ${w.name} is available: it has no default keyring and could not create one${raw}`;
      todo = w.install;
      break;
    case 'locked':
      what = `The ${w.name} is locked${raw}`;
      todo = w.unlock;
      break;
    case 'declined':
      what = `Access to the ${w.name} was declined${raw}`;
      todo = `${w.unlock} and allow Capture Desk to use it`;
      break;
    case 'not-kept':
      what = `The ${w.name} accepted the key but did not keep it (an unlock prompt may have been dismissed)`;
      todo = `${w.unlock} and try again`;
      break;
    case 'module-load':
      what = `The ${w.name} cannot be used: its native module (keytar) did not load${raw}`;
      todo = `Reinstall Capture Desk${f.platform === 'linux' ? ' (it needs libsecret-1-0)' : ''}`;
      break;
    case 'timeout':
      what = `The ${w.name} did not answer within ${duration(f.timeoutMs ?? 0)} (an unlock prompt may be waiting)`;
      todo = `${w.unlock} and try again`;
      break;
    default:
      what = `The ${w.name} refused the request${raw}`;
      todo = `${w.unlock} and try again`;
  }
  const alternative = f.op === 'delete' ? '' : f.account?.endsWith(':hmac-key')
    ? ', or pass the key with --hmac-key for this run'
    : ', or pass the key with --api-key / CAPTURE_DESK_API_KEY for this run';
  const details: KeychainUnavailableDetails = { keychain: 'unavailable', reason: f.reason };
  return new CoreError('Unavailable', `${what}. ${todo}${alternative}. ${outcome(f.op, f.reason === 'timeout')}`, details);
}

function outcome(op: KeychainOp, maybe: boolean): string {
  if (op === 'set') return maybe ? 'The key may not have been stored.' : 'The key was not stored.';
  if (op === 'delete') return maybe ? 'The key may not have been removed.' : 'The key was not removed.';
  return 'No stored key was read.';
}

function duration(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`;
}

/** One line, no trailing full stop, bounded: the text goes inside a sentence of ours. */
function tidy(raw: string): string {
  const line = raw.replace(/\s+/g, ' ').trim().replace(/\.+$/, '');
  return line.length > 240 ? `${line.slice(0, 239)}…` : line;
}
