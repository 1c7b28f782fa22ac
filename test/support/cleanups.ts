import { afterEach } from 'vitest';

// What a test started (a board, a server, a temporary folder, a child process) is stopped after
// it, even when an assertion failed half way: each start pushes its own clean-up here.

/** Clean-ups of one test, run after it in reverse order (the last thing started stops first). */
export type Cleanups = Array<() => unknown>;

/** The clean-ups list of each test in this file, run by an afterEach. */
export function useCleanups(): Cleanups {
  const cleanups: Cleanups = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  return cleanups;
}
