import { CoreError } from '../../errors.js';
import { REDACTED, redactSecrets } from '../../secrets/redact.js';

/**
 * The board answered, but with a refusal: an `ERR:` line, or one of the ways the firmware says it
 * does not know a command ("Not a valid AT command (...)", "Command not found!", "No handler for...").
 */
export type AtFailureKind = 'device-error' | 'unknown-command';

export class AtCommandError extends CoreError {
  readonly kind: AtFailureKind;
  /** The command up to "=", never its arguments (they can hold keys). */
  readonly command: string;
  /** What the board said, with secrets masked. */
  readonly deviceText: string;

  constructor(kind: AtFailureKind, command: string, deviceText: string) {
    const message = kind === 'unknown-command'
      ? `The board does not understand ${command} ("${deviceText}"). Flash the platform's official firmware, or update it.`
      : `The board reported an error for ${command}: ${deviceText}`;
    super('Unavailable', message, { command, kind, deviceText });
    this.name = 'AtCommandError';
    this.kind = kind;
    this.command = command;
    this.deviceText = deviceText;
  }
}

/** No prompt came back in time: the board is busy, not running the official firmware, or at another baud rate. */
export class AtTimeoutError extends CoreError {
  readonly command: string;

  constructor(command: string, timeoutMs: number) {
    super(
      'Unavailable',
      `No answer from the board to ${command === 'b' ? "the stop command 'b'" : command} within ${formatSeconds(timeoutMs)}. Check that it runs the platform's official firmware at 115200 baud and is not busy, then reconnect.`,
      { command, timeoutMs },
    );
    this.name = 'AtTimeoutError';
    this.command = command;
  }
}

/** "AT+SAMPLESETTINGS=idle,16,1000,key" → "AT+SAMPLESETTINGS": safe to show and to log. */
export function commandVerb(cmd: string): string {
  const eq = cmd.indexOf('=');
  return eq < 0 ? cmd : cmd.slice(0, eq);
}

// The firmware prints stored secrets in AT+CONFIG? and AT+SAMPLESTART ("HMAC Key: ...",
// "Api Key: ...", "Password: ..."), including ones we were never given, so mask them by shape too.
const SECRET_LINE = /\b(hmac key|api key|password)(\s*:\s*)\S.*$/gim;

/** Masks secrets, known or printed by the firmware, in text that may reach a log or the UI. */
export function maskDeviceText(text: string, secrets: readonly string[] = []): string {
  return redactSecrets(text, secrets).replace(SECRET_LINE, (_, k: string, sep: string) => `${k}${sep}${REDACTED}`);
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** A read-back that came through damaged or short: the same read may well come through whole. */
export class AtGarbledRead extends CoreError {
  constructor(message: string) {
    super('Unavailable', message);
  }
}
