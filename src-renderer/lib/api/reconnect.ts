import type { EventName, EventPayload } from '../../../src-main/core/contract/contract.js';
import type { Api } from './client.js';

/**
 * Calls `fn` each time the connection comes back after a drop. Events sent while it was down are
 * lost, so whatever was built from them must be fetched again.
 */
export function onReconnect(api: Api, fn: () => void): () => void {
  let wasDown = false;
  return api.onStatus((s) => {
    if (s === 'closed') wasDown = true;
    else if (s === 'open' && wasDown) {
      wasDown = false;
      fn();
    }
  });
}

/**
 * Keeps a view of the core current: each `event` goes to `accept`, and after a drop (its events
 * lost) `reread` fetches the whole again. Returns the cleanup for an $effect.
 */
export function followEvent<E extends EventName>(api: Api, event: E, accept: (payload: EventPayload<E>) => void, reread: () => void): () => void {
  const offEvent = api.on(event, accept);
  const offReconnect = onReconnect(api, reread);
  return () => {
    offEvent();
    offReconnect();
  };
}
