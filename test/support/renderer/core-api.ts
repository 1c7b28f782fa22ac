import type { Core } from '../../../src-main/core/app.js';
import { createApi, type Api } from '../../../src-renderer/lib/api/client.js';

/**
 * The renderer's own Api client over a real core in this process, as the window gets it over IPC.
 * `core` is asked at every call, so a test may restart the core under the same Api; `onCall` sees
 * each method called, in order.
 */
export function coreApi(core: () => Core, onCall?: (method: string, input: unknown) => void): Api {
  return createApi({
    call: (method, input) => (onCall?.(method, input), core().dispatch(method, input)),
    onEvent: (l) => core().onEvent(l),
    onStatus: () => () => {},
  });
}
