import type { ErrorCode, WireError } from './contract/wire-schema.js';

/**
 * A failure the user can act on. The code travels over every transport unchanged so the UI can
 * tell "unplugged" from "bad key" without parsing messages.
 */
export class CoreError extends Error {
  readonly code: ErrorCode;
  readonly details: unknown;

  constructor(code: ErrorCode, message: string, details?: unknown) {
    super(message);
    this.name = 'CoreError';
    this.code = code;
    this.details = details;
  }
}

/** Turns anything thrown into what crosses a transport. Unknown errors keep their message but not their stack. */
export function toWireError(err: unknown): WireError {
  if (err instanceof CoreError) {
    return err.details === undefined
      ? { code: err.code, message: err.message }
      : { code: err.code, message: err.message, details: err.details };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { code: 'Internal', message: `Internal error: ${message}` };
}
