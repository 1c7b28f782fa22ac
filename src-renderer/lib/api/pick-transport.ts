import type { CaptureDeskBridge } from '../../../src-main/electron/bridge.js';
import type { Transport } from './client.js';
import { ipcTransport } from './ipc-transport.js';
import { wsTransport } from './ws-transport.js';

declare global {
  interface Window {
    captureDesk?: CaptureDeskBridge;
  }
}

/** Inside Electron the preload provides a bridge; in a browser the page was served under /<token>/. */
export function pickTransport(): Transport {
  if (window.captureDesk) return ipcTransport(window.captureDesk);
  const token = location.pathname.split('/')[1] ?? '';
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return wsTransport(`${scheme}//${location.host}/${token}/ws`);
}
