// Sandboxed preload: it may only require('electron'). It exposes two generic functions and a file's
// path, never ipcRenderer itself, so the page can call contract methods and nothing else.
import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron';
import { CALL_CHANNEL, EVENT_CHANNEL, type CaptureDeskBridge } from './bridge.js';

const bridge: CaptureDeskBridge = {
  call: (method, input) => ipcRenderer.invoke(CALL_CHANNEL, method, input),
  onEvent(listener) {
    const handler = (_e: IpcRendererEvent, name: Parameters<typeof listener>[0], payload: unknown) => listener(name, payload);
    ipcRenderer.on(EVENT_CHANNEL, handler);
    return () => {
      ipcRenderer.removeListener(EVENT_CHANNEL, handler);
    };
  },
  // File.path is gone from Electron's renderers; this is the sandbox-safe way to learn a dropped file's path.
  pathForFile: (file) => webUtils.getPathForFile(file),
};

contextBridge.exposeInMainWorld('captureDesk', bridge);
