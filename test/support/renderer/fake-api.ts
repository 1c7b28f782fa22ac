import type { Api } from '../../../src-renderer/lib/api/client.js';

// The renderer's Api as a state class under test sees it, answering like the core: each method the
// test expects has a handler, any other call fails the test, and the test emits events by hand.
// (Tests against the real core use createApi over core.dispatch instead.)

type MethodName = Parameters<Api['call']>[0];
type EventName = Parameters<Api['on']>[0];
export type Handler = (input: never) => unknown;

export function fakeApi(handlers: Partial<Record<MethodName, Handler>> = {}) {
  /** Every call made, in order. */
  const calls: Array<{ method: MethodName; input: unknown }> = [];
  const listeners = new Map<EventName, Set<(p: unknown) => void>>();
  const api: Api = {
    call: (async (method: MethodName, input: unknown) => {
      calls.push({ method, input });
      const h = handlers[method];
      if (!h) throw new Error(`unexpected call ${method}`);
      return h(input as never);
    }) as Api['call'],
    on: ((name: EventName, l: (p: unknown) => void) => {
      const set = listeners.get(name) ?? new Set();
      listeners.set(name, set);
      set.add(l);
      return () => set.delete(l);
    }) as Api['on'],
    onStatus: () => () => {},
  };
  /** Sends an event to whoever listens. */
  const emit = (name: EventName, payload: unknown) => listeners.get(name)?.forEach((l) => l(payload));
  /** How many listeners are subscribed now (every subscription must be removable). */
  const listening = () => [...listeners.values()].reduce((n, s) => n + s.size, 0);
  return { api, calls, emit, listening };
}
