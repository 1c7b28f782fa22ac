/**
 * What crosses a transport when a call fails, and what every binding answers a call with. The
 * errors of the core (core/errors.ts) are made of these; nothing here imports anything but zod.
 */
import { z } from 'zod';

/** Error codes a caller can branch on. The message is for people; the code is for code. */
export const ErrorCode = z.enum([
  'UnknownMethod',
  'InvalidArguments',
  'MalformedMessage',
  'MessageTooLarge',
  'Unauthorized',
  'NotFound',
  'Busy',
  'Disconnected',
  'PermissionDenied',
  'Unavailable',
  /** Long work the user cancelled (a split, an export): nothing of it was kept. */
  'Cancelled',
  'Internal',
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const WireError = z.object({
  code: ErrorCode,
  message: z.string(),
  /** Extra facts for the UI (e.g. which argument failed); never secrets. */
  details: z.unknown().optional(),
});
export type WireError = z.infer<typeof WireError>;

/** What every binding returns for a call: never a thrown transport error for a core failure. */
export type CallResult<T = unknown> = { ok: true; value: T } | { ok: false; error: WireError };
