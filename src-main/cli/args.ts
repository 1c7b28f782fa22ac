/** A command-line mistake: printed with the command's usage, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export function parsePort(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  // Digits only: Number("") is 0, so an empty --port (an unset variable in a script) picked a
  // random port instead of being refused; " 80" and "0x50" are not what anyone types on purpose.
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    throw new UsageError(`--port must be a whole number from 0 to 65535 (0 picks a free port), got ${value.trim() ? `"${value}"` : 'an empty value'}.`);
  }
  return n;
}
