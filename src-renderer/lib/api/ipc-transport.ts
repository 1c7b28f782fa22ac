import type { CaptureDeskBridge } from '../../../src-main/electron/bridge.js';
import type { Transport } from './client.js';

/** Electron: the preload's generic bridge already speaks call/result; typed arrays cross by structured clone. */
export function ipcTransport(bridge: CaptureDeskBridge): Transport {
  return {
    call: (method, input) => bridge.call(method, input),
    onEvent: (listener) => bridge.onEvent(listener),
    onStatus(listener) {
      listener('open');
      return () => {};
    },
  };
}
