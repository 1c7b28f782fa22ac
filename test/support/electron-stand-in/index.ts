/**
 * A stand-in for the `electron` module as the main process sees it, for running the real
 * dist/electron/main.js under Node (the Electron binary cannot be downloaded here). It follows
 * Electron's documented behaviour where the app relies on it: 'ready' only after the entry module
 * has loaded, the quit sequence (before-quit → windows close → will-quit, whose preventDefault
 * stops the exit → quit), window-all-closed quitting by default, the single-instance lock held
 * across processes, `screen` refused before 'ready', a second ipcMain.handle refused. Anything
 * it does not implement throws a message naming the member, instead of silently returning
 * undefined. A test drives it over the child's IPC channel (driver.ts).
 *
 * Bundled by the test into <app>/node_modules/electron/index.js, where the packaged app's own
 * module resolution finds `electron` (see client.ts and test/packaging/electron-main.test.ts).
 * Environment: ELECTRON_STAND_IN_USER_DATA (what app.getPath('userData') returns; required),
 * ELECTRON_STAND_IN_DISPLAYS (JSON [{bounds, workArea}], default one 1920×1080 display),
 * ELECTRON_STAND_IN_VERSION (process.versions.electron).
 */
import { appImpl } from './app.js';
import { hooks, record, StandInEvent } from './common.js';
import type { AppSnapshot, FromApp } from './protocol.js';
import { ipcMainImpl } from './services.js';
import { BrowserWindow } from './windows.js';

export { app } from './app.js';
export { Menu } from './menu.js';
export { clipboard, dialog, ipcMain, screen, session, shell } from './services.js';
export { BrowserWindow, WebContents, webContents } from './windows.js';

// For boot.ts and driver.ts only (not part of Electron's API).
export const standIn = {
  StandInEvent,
  record,
  ipcMain: ipcMainImpl,
  app: appImpl,
  setAppDir(dir: string, pkg: typeof hooks.appPackage): void {
    hooks.appDir = dir;
    hooks.appPackage = pkg;
  },
  setNotifier(fn: (m: FromApp) => void): void {
    hooks.notify = fn;
  },
  onEnd(fn: (code: number) => void): void {
    hooks.onEnd.push(fn);
  },
  snapshot(): AppSnapshot {
    return {
      ready: appImpl.isReady(),
      sandboxEnabled: record.sandboxEnabled,
      sandboxEnabledBeforeReady: record.sandboxEnabledBeforeReady,
      hasSingleInstanceLock: appImpl.hasSingleInstanceLock(),
      windows: BrowserWindow.getAllWindows().map((w) => w.snapshot()),
      applicationMenu: record.applicationMenu?.snapshot() ?? null,
      ipcHandlers: [...ipcMainImpl.handlers.keys()],
      hasPermissionRequestHandler: record.permissionRequestHandler !== null,
      shellCalls: [...record.shellCalls],
      clipboard: [...record.clipboard],
      dialogs: [...record.dialogs],
      appEvents: [...record.appEvents],
    };
  },
};
