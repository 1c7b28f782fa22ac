import type { CaptureDeskBridge } from '../../../src-main/electron/bridge.js';
import type { Transport } from './client.js';
import { ipcTransport } from './ipc-transport.js';
import { wsTransport } from './ws-transport.js';
import { wsUrlFor } from './ws-url.js';

declare global {
  interface Window {
    captureDesk?: CaptureDeskBridge;
  }
}

/** Inside Electron the preload provides a bridge; in a browser the WebSocket sits beside the page. */
export function pickTransport(): Transport {
  if (window.captureDesk) return ipcTransport(window.captureDesk);
  return wsTransport(wsUrlFor(location.href));
}
