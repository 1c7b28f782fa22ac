import { randomBytes, timingSafeEqual } from 'node:crypto';

/** 256 bits, URL-safe: the token is a path segment of the printed URL. */
export function createSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Constant-time comparison so the token cannot be guessed byte by byte from response timing. */
export function tokenMatches(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
