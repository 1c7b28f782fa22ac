import type { CaptureDeskBridge } from '../../../src-main/electron/bridge.js';
import type { Transport } from './client.js';
import { ipcTransport } from './ipc-transport.js';
import { wsTransport } from './ws-transport.js';

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

/**
 * The browser shell's WebSocket for a page at `pageUrl`: `ws` in the page's folder, over WSS when
 * the page came over HTTPS. Signed in, the page is at /app/ and the session cookie goes along with
 * the upgrade; the token is in no URL.
 */
export function wsUrlFor(pageUrl: string): string {
  const url = new URL('ws', pageUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.search = '';
  url.hash = '';
  return url.href;
}
