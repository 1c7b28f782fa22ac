import { expect } from 'vitest';

// What a call threw or rejected with, checked to be the error class the code under test promises
// (so a test can go on to read its code, details and words). A call that does not fail fails the test.

type ErrorClass<E extends Error> = abstract new (...args: never[]) => E;

/** The error `p` rejected with. */
export async function rejectionOf<E extends Error>(p: Promise<unknown>, type: ErrorClass<E>): Promise<E> {
  const err = await p.then(
    () => expect.unreachable('expected a rejection'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(type);
  return err as E;
}

/** The error `fn` threw. */
export function thrownBy<E extends Error>(fn: () => unknown, type: ErrorClass<E>): E {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(type);
    return err as E;
  }
  return expect.unreachable(`expected a ${type.name}`);
}
