// Messages between a test and an app running on the Electron stand-in (over the child's IPC
// channel, serialization 'advanced' so typed arrays and Maps cross as they do in Electron's IPC).

/** Who an `invoke` comes from: our window's own page, another web contents, or our window showing another page. */
export type SenderKind = 'window' | 'foreign-contents' | 'foreign-frame';

export type DriverOp =
  | { op: 'snapshot' }
  | { op: 'invoke'; channel: string; args: unknown[]; as: SenderKind }
  | { op: 'window.setBounds'; bounds: { x: number; y: number; width: number; height: number } }
  | { op: 'window.maximize' }
  | { op: 'window.close' }
  | { op: 'window.navigate'; url: string }
  | { op: 'window.open'; url: string }
  | { op: 'permission'; permission: string }
  | { op: 'menu.click'; path: string[] }
  | { op: 'app.quit' };

export type ToApp = { t: 'call'; id: number } & DriverOp;

export type FromApp =
  | { t: 'reply'; id: number; ok: true; value: unknown }
  | { t: 'reply'; id: number; ok: false; error: string }
  /** Something the app did that a test may wait for. */
  | { t: 'note'; kind: 'ready' | 'window-created' | 'quit' | 'second-instance'; detail?: unknown }
  /** webContents.send from the main process: what the renderer's ipcRenderer listeners receive. */
  | { t: 'sent'; webContentsId: number; channel: string; args: unknown[] };

export interface MenuItemSnapshot {
  label?: string;
  role?: string;
  type?: string;
  accelerator?: string;
  enabled?: boolean;
  submenu?: MenuItemSnapshot[];
}

export interface WindowSnapshot {
  id: number;
  webContentsId: number;
  /** The constructor options, functions left out. */
  options: Record<string, unknown>;
  bounds: { x: number; y: number; width: number; height: number };
  maximized: boolean;
  visible: boolean;
  focusCount: number;
  loadedFile: string | null;
  url: string;
  hasWindowOpenHandler: boolean;
}

export interface AppSnapshot {
  ready: boolean;
  sandboxEnabled: boolean;
  /** app.enableSandbox() was called before 'ready' (Electron refuses it afterwards). */
  sandboxEnabledBeforeReady: boolean;
  hasSingleInstanceLock: boolean;
  windows: WindowSnapshot[];
  applicationMenu: MenuItemSnapshot[] | null;
  ipcHandlers: string[];
  hasPermissionRequestHandler: boolean;
  shellCalls: Array<{ fn: string; arg: string }>;
  clipboard: string[];
  dialogs: Array<{ fn: string; args: unknown[] }>;
  appEvents: string[];
}
