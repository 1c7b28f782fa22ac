import { afterAll, beforeAll } from 'vitest';

/**
 * Something a whole test file needs and makes once, before its tests (a bundled worker, a temporary
 * folder). The returned getter gives it inside a test or hook, and says what is missing if asked
 * earlier; `after` runs after the file's tests on what was made.
 */
export function useBeforeAll<T>(what: string, make: () => Promise<T>, o: { timeoutMs?: number; after?: (value: T) => unknown } = {}): () => T {
  let made: { value: T } | undefined;
  beforeAll(async () => {
    made = { value: await make() };
  }, o.timeoutMs);
  const { after } = o;
  if (after) afterAll(() => (made ? after(made.value) : undefined));
  return () => {
    if (!made) throw new Error(`${what} is made before the tests: ask for it inside a test or hook`);
    return made.value;
  };
}
