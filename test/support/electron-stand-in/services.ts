// Electron's screen, ipcMain, session, shell, clipboard and dialog: recorded where a test asks.
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { requireReady } from './app.js';
import { displays, plain, record, strict, type StandInDisplay } from './common.js';
import type { WebContents } from './windows.js';

export const screen = strict('screen', {
  getAllDisplays(): StandInDisplay[] {
    requireReady('screen');
    return displays();
  },
  getPrimaryDisplay(): StandInDisplay {
    requireReady('screen');
    return displays()[0]!;
  },
  on(): void {},
});

export type IpcHandler = (event: unknown, ...args: unknown[]) => unknown;
class IpcMain extends EventEmitter {
  readonly handlers = new Map<string, IpcHandler>();
  handle(channel: string, handler: IpcHandler): void {
    if (this.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.handlers.set(channel, handler);
  }
  handleOnce(channel: string, handler: IpcHandler): void {
    this.handle(channel, (...a) => {
      this.handlers.delete(channel);
      return handler(...a);
    });
  }
  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }
}
export const ipcMainImpl = new IpcMain();
export const ipcMain = strict('ipcMain', ipcMainImpl);

export type PermissionHandler = (wc: WebContents, permission: string, callback: (granted: boolean) => void, details: Record<string, unknown>) => void;
export const defaultSession = strict('session.defaultSession', {
  setPermissionRequestHandler(handler: PermissionHandler | null): void {
    record.permissionRequestHandler = handler;
  },
  setPermissionCheckHandler(): void {},
});
export const session = strict('session', {
  get defaultSession() {
    requireReady('session');
    return defaultSession;
  },
});

export const shell = strict('shell', {
  async openExternal(url: string): Promise<void> {
    record.shellCalls.push({ fn: 'openExternal', arg: url });
  },
  /** Resolves to '' on success, an error message otherwise (Electron's contract). */
  async openPath(path: string): Promise<string> {
    record.shellCalls.push({ fn: 'openPath', arg: path });
    return existsSync(path) ? '' : `Failed to open path: ${path}`;
  },
  showItemInFolder(path: string): void {
    record.shellCalls.push({ fn: 'showItemInFolder', arg: path });
  },
});

export const clipboard = strict('clipboard', {
  writeText(text: string): void {
    record.clipboard.push(text);
  },
  readText(): string {
    return record.clipboard.at(-1) ?? '';
  },
});

export const dialog = strict('dialog', {
  async showOpenDialog(...args: unknown[]) {
    record.dialogs.push({ fn: 'showOpenDialog', args: plain(args) as unknown[] });
    return { canceled: true, filePaths: [] };
  },
  async showSaveDialog(...args: unknown[]) {
    record.dialogs.push({ fn: 'showSaveDialog', args: plain(args) as unknown[] });
    return { canceled: true };
  },
  async showMessageBox(...args: unknown[]) {
    record.dialogs.push({ fn: 'showMessageBox', args: plain(args) as unknown[] });
    return { response: 0, checkboxChecked: false };
  },
  showErrorBox(title: string, content: string): void {
    record.dialogs.push({ fn: 'showErrorBox', args: [title, content] });
    // Electron shows a modal box; the test reads it from the output, since the app exits right after.
    process.stderr.write(`[electron stand-in] dialog.showErrorBox: ${JSON.stringify({ title, content })}\n`);
  },
});
