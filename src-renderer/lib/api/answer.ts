import { errorText } from '../format.js';

export type Answer<T> = { ok: true; value: T; error: null } | { ok: false; error: string };

/**
 * A view reading the core, as every state class's refresh does it: the answer, or what went wrong
 * in words. It never throws, so a view keeps its last answer beside the error until one comes.
 */
export async function answer<T>(ask: () => Promise<T>): Promise<Answer<T>> {
  try {
    return { ok: true, value: await ask(), error: null };
  } catch (err) {
    return { ok: false, error: errorText(err) };
  }
}
