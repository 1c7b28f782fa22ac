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
