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
 * module resolution finds `electron` (see test/packaging/electron-main.test.ts).
 */
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AppSnapshot, FromApp, MenuItemSnapshot, WindowSnapshot } from './protocol.js';
import { SingletonLock } from './singleton.js';

/** Unknown members throw instead of reading as undefined, so a new Electron call shows up here first. */
function strict<T extends object>(name: string, target: T): T {
  return new Proxy(target, {
    get(t, prop) {
      if (typeof prop === 'symbol' || prop in t || prop === 'then' || prop === 'toJSON') {
        // Methods run on the real object: its private fields are not visible through the proxy.
        const v: unknown = Reflect.get(t, prop, t);
        return typeof v === 'function' ? v.bind(t) : v;
      }
      throw new Error(`electron stand-in: ${name}.${prop} is not implemented; add it to test/support/electron-stand-in/index.ts`);
    },
  });
}

/** An Electron event: handlers call preventDefault() to cancel what follows. */
class StandInEvent {
  defaultPrevented = false;
  preventDefault(): void {
    this.defaultPrevented = true;
  }
}

type Rect = { x: number; y: number; width: number; height: number };
interface StandInDisplay {
  id: number;
  bounds: Rect;
  workArea: Rect;
  scaleFactor: number;
}

// ---------------------------------------------------------------------------------------------
// Shared state and the hook to the driver (the test's side of the IPC channel).

const record = {
  sandboxEnabled: false,
  sandboxEnabledBeforeReady: false,
  applicationMenu: null as Menu | null,
  shellCalls: [] as Array<{ fn: string; arg: string }>,
  clipboard: [] as string[],
  dialogs: [] as Array<{ fn: string; args: unknown[] }>,
  appEvents: [] as string[],
  permissionRequestHandler: null as PermissionHandler | null,
};
let notify: (m: FromApp) => void = () => {};
let appDir = process.cwd();
let appPackage: { name?: string; productName?: string; version?: string } = {};

// ---------------------------------------------------------------------------------------------
// app

class App extends EventEmitter {
  #ready = false;
  #readyPromise: Promise<void>;
  #resolveReady!: () => void;
  #quitting = false;
  #lock: SingletonLock | null = null;
  readonly isPackaged = true;

  constructor() {
    super();
    this.#readyPromise = new Promise((r) => (this.#resolveReady = r));
  }

  override emit(name: string | symbol, ...args: unknown[]): boolean {
    if (typeof name === 'string') record.appEvents.push(name);
    return super.emit(name, ...args);
  }

  isReady(): boolean {
    return this.#ready;
  }
  whenReady(): Promise<void> {
    return this.#readyPromise;
  }
  enableSandbox(): void {
    if (this.#ready) throw new Error('app.enableSandbox() can only be called before app is ready');
    record.sandboxEnabled = true;
    record.sandboxEnabledBeforeReady = true;
  }
  getName(): string {
    return appPackage.productName ?? appPackage.name ?? 'Electron';
  }
  getVersion(): string {
    return appPackage.version ?? '0.0.0';
  }
  getAppPath(): string {
    return appDir;
  }
  getLocale(): string {
    return 'en-US';
  }
  getPath(name: string): string {
    const userData = process.env.ELECTRON_STAND_IN_USER_DATA;
    if (!userData) throw new Error('electron stand-in: set ELECTRON_STAND_IN_USER_DATA to the data folder app.getPath("userData") returns');
    const paths: Record<string, string> = {
      userData,
      appData: dirname(userData),
      sessionData: userData,
      logs: join(userData, 'logs'),
      temp: tmpdir(),
      home: homedir(),
      exe: process.execPath,
      desktop: join(homedir(), 'Desktop'),
      documents: join(homedir(), 'Documents'),
      downloads: join(homedir(), 'Downloads'),
    };
    const p = paths[name];
    if (p === undefined) throw new Error(`Failed to get '${name}' path`);
    return p;
  }

  requestSingleInstanceLock(additionalData?: unknown): boolean {
    if (this.#lock) return true;
    const lock = SingletonLock.acquire(this.getPath('userData'), (argv, cwd, data) => {
      notify({ t: 'note', kind: 'second-instance', detail: { argv, cwd } });
      this.emit('second-instance', new StandInEvent(), argv, cwd, data);
    });
    if (lock === null) {
      SingletonLock.notifyOwner(this.getPath('userData'), process.argv, process.cwd(), additionalData);
      return false;
    }
    this.#lock = lock;
    return true;
  }
  hasSingleInstanceLock(): boolean {
    return this.#lock !== null;
  }
  releaseSingleInstanceLock(): void {
    this.#lock?.release();
    this.#lock = null;
  }

  /** Called by boot.ts once the entry module has loaded, as Electron does. */
  markReady(): void {
    if (this.#ready || this.#quitting) return;
    this.#ready = true;
    this.emit('will-finish-launching');
    this.emit('ready', new StandInEvent(), {});
    this.#resolveReady();
  }

  /** Electron's sequence: before-quit, close every window, will-quit, quit, then the process ends. */
  quit(): void {
    setImmediate(() => this.#runQuit());
  }
  #runQuit(): void {
    const before = new StandInEvent();
    this.emit('before-quit', before);
    if (before.defaultPrevented) return;
    this.#quitting = true;
    for (const w of BrowserWindow.getAllWindows()) w.close();
    if (BrowserWindow.getAllWindows().length > 0) {
      this.#quitting = false; // a window refused to close: quitting stops here, as in Electron
      return;
    }
    const willQuit = new StandInEvent();
    this.emit('will-quit', willQuit);
    if (willQuit.defaultPrevented) {
      this.#quitting = false;
      return;
    }
    this.emit('quit', new StandInEvent(), 0);
    this.#end(0);
  }

  /** Exits at once: no before-quit or will-quit (Electron's app.exit). */
  exit(code = 0): void {
    process.stderr.write(`[electron stand-in] app.exit(${code}) called\n`);
    for (const w of BrowserWindow.getAllWindows()) w.destroy();
    this.#end(code);
  }

  get quitting(): boolean {
    return this.#quitting;
  }

  /**
   * Where Electron would end the process. The stand-in instead lets go of everything it holds
   * (lock, driver channel) and leaves Node to exit once nothing else is open, so a handle the app
   * forgot to close keeps the process alive and a test can see it.
   */
  #end(code: number): void {
    this.releaseSingleInstanceLock();
    process.exitCode = code;
    endHooks.forEach((fn) => fn(code));
  }
  focus(): void {}
}
const endHooks: Array<(code: number) => void> = [];

const appImpl = new App();
export const app = strict('app', appImpl);

// ---------------------------------------------------------------------------------------------
// screen

function displays(): StandInDisplay[] {
  const raw = process.env.ELECTRON_STAND_IN_DISPLAYS;
  const list = raw ? (JSON.parse(raw) as Array<{ bounds: Rect; workArea?: Rect }>) : [{ bounds: { x: 0, y: 0, width: 1920, height: 1080 }, workArea: { x: 0, y: 0, width: 1920, height: 1040 } }];
  return list.map((d, i) => ({ id: i + 1, bounds: d.bounds, workArea: d.workArea ?? d.bounds, scaleFactor: 1 }));
}
function requireReady(module: string): void {
  if (!appImpl.isReady()) throw new Error(`The '${module}' module can't be used before the app 'ready' event`);
}
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

// ---------------------------------------------------------------------------------------------
// webContents and BrowserWindow

let nextWebContentsId = 1;
const allContents = new Map<number, WebContents>();

type WindowOpenHandler = (details: { url: string; frameName: string; features: string; disposition: string }) => { action: 'allow' | 'deny' };

export class WebContents extends EventEmitter {
  readonly id = nextWebContentsId++;
  #destroyed = false;
  url = '';
  loadedFile: string | null = null;
  windowOpenHandler: WindowOpenHandler | null = null;
  readonly session = defaultSession;

  constructor() {
    super();
    allContents.set(this.id, this);
  }
  get mainFrame(): { url: string } {
    return { url: this.url };
  }
  send(channel: string, ...args: unknown[]): void {
    if (this.#destroyed) throw new Error('Object has been destroyed');
    notify({ t: 'sent', webContentsId: this.id, channel, args });
  }
  setWindowOpenHandler(handler: WindowOpenHandler): void {
    this.windowOpenHandler = handler;
  }
  getURL(): string {
    return this.url;
  }
  isDestroyed(): boolean {
    return this.#destroyed;
  }
  async loadFile(path: string): Promise<void> {
    // Electron resolves the page's URL from the path and fails the load (ERR_FILE_NOT_FOUND, -6) when it is missing.
    this.url = pathToFileURL(path).href;
    this.loadedFile = path;
    await new Promise((r) => setImmediate(r));
    if (!existsSync(path)) {
      this.emit('did-fail-load', new StandInEvent(), -6, 'ERR_FILE_NOT_FOUND', this.url);
      throw new Error(`ERR_FILE_NOT_FOUND (-6) loading '${this.url}'`);
    }
    this.emit('did-finish-load', new StandInEvent());
  }
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    allContents.delete(this.id);
    this.emit('destroyed', new StandInEvent());
  }
}

let nextWindowId = 1;
const allWindows = new Map<number, BrowserWindow>();

export class BrowserWindow extends EventEmitter {
  readonly id = nextWindowId++;
  readonly webContents: WebContents;
  readonly options: Record<string, unknown>;
  #bounds: Rect;
  #normal: Rect;
  #maximized = false;
  #minimized = false;
  #visible: boolean;
  #destroyed = false;
  focusCount = 0;

  static getAllWindows(): BrowserWindow[] {
    return [...allWindows.values()];
  }
  static fromId(id: number): BrowserWindow | null {
    return allWindows.get(id) ?? null;
  }
  static fromWebContents(wc: WebContents): BrowserWindow | null {
    return BrowserWindow.getAllWindows().find((w) => w.webContents === wc) ?? null;
  }
  static getFocusedWindow(): BrowserWindow | null {
    return BrowserWindow.getAllWindows()[0] ?? null;
  }

  constructor(options: Record<string, unknown> = {}) {
    super();
    if (!appImpl.isReady()) throw new Error('Cannot create BrowserWindow before app is ready');
    this.options = options;
    const primary = displays()[0]!.workArea;
    const width = (options.width as number | undefined) ?? 800;
    const height = (options.height as number | undefined) ?? 600;
    this.#bounds = {
      x: (options.x as number | undefined) ?? primary.x + Math.round((primary.width - width) / 2),
      y: (options.y as number | undefined) ?? primary.y + Math.round((primary.height - height) / 2),
      width,
      height,
    };
    this.#normal = { ...this.#bounds };
    this.#visible = options.show !== false;
    this.webContents = new WebContents();
    allWindows.set(this.id, this);
    appImpl.emit('web-contents-created', new StandInEvent(), this.webContents);
    appImpl.emit('browser-window-created', new StandInEvent(), this);
    this.webContents.on('did-finish-load', () => this.emit('ready-to-show'));
    notify({ t: 'note', kind: 'window-created', detail: { id: this.id } });
  }

  loadFile(path: string): Promise<void> {
    return this.webContents.loadFile(path);
  }
  show(): void {
    this.#visible = true;
    this.emit('show');
  }
  hide(): void {
    this.#visible = false;
  }
  isVisible(): boolean {
    return this.#visible;
  }
  focus(): void {
    this.focusCount++;
    this.emit('focus');
  }
  isMinimized(): boolean {
    return this.#minimized;
  }
  minimize(): void {
    this.#minimized = true;
    this.emit('minimize');
  }
  restore(): void {
    this.#minimized = false;
    this.emit('restore');
  }
  isMaximized(): boolean {
    return this.#maximized;
  }
  maximize(): void {
    if (this.#maximized) return;
    this.#maximized = true;
    this.#bounds = { ...displays()[0]!.workArea };
    this.emit('maximize');
    this.emit('resize');
  }
  unmaximize(): void {
    if (!this.#maximized) return;
    this.#maximized = false;
    this.#bounds = { ...this.#normal };
    this.emit('unmaximize');
    this.emit('resize');
  }
  isFullScreen(): boolean {
    return false;
  }
  getBounds(): Rect {
    return { ...this.#bounds };
  }
  /** Whatever the state (maximized, minimized), the bounds of the normal state. */
  getNormalBounds(): Rect {
    return { ...(this.#maximized ? this.#normal : this.#bounds) };
  }
  setBounds(b: Partial<Rect>): void {
    if (this.#maximized) this.unmaximize();
    const next = { ...this.#bounds, ...b };
    const moved = next.x !== this.#bounds.x || next.y !== this.#bounds.y;
    const resized = next.width !== this.#bounds.width || next.height !== this.#bounds.height;
    this.#bounds = next;
    this.#normal = { ...next };
    if (moved) this.emit('move');
    if (resized) this.emit('resize');
  }
  setTitle(title: string): void {
    this.options.title = title;
  }
  getTitle(): string {
    return String(this.options.title ?? appImpl.getName());
  }
  isDestroyed(): boolean {
    return this.#destroyed;
  }
  /** Like a click on the window's close button: 'close' may be prevented, then 'closed'. */
  close(): void {
    if (this.#destroyed) return;
    const e = new StandInEvent();
    this.emit('close', e);
    if (e.defaultPrevented) return;
    this.destroy();
  }
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    allWindows.delete(this.id);
    this.webContents.destroy();
    this.emit('closed');
    // Electron: with no listener, the app quits once the last window has closed; not while quitting.
    if (allWindows.size === 0 && !appImpl.quitting) {
      if (appImpl.listenerCount('window-all-closed') > 0) appImpl.emit('window-all-closed');
      else appImpl.quit();
    }
  }

  snapshot(): WindowSnapshot {
    return {
      id: this.id,
      webContentsId: this.webContents.id,
      options: plain(this.options) as Record<string, unknown>,
      bounds: this.getBounds(),
      maximized: this.#maximized,
      visible: this.#visible,
      focusCount: this.focusCount,
      loadedFile: this.webContents.loadedFile,
      url: this.webContents.url,
      hasWindowOpenHandler: this.webContents.windowOpenHandler !== null,
    };
  }
}

export const webContents = strict('webContents', {
  fromId: (id: number) => allContents.get(id),
  getAllWebContents: () => [...allContents.values()],
});

// ---------------------------------------------------------------------------------------------
// ipcMain

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

// ---------------------------------------------------------------------------------------------
// session

type PermissionHandler = (wc: WebContents, permission: string, callback: (granted: boolean) => void, details: Record<string, unknown>) => void;
const defaultSession = strict('session.defaultSession', {
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

// ---------------------------------------------------------------------------------------------
// Menu

export interface MenuItemOptions {
  label?: string;
  role?: string;
  type?: string;
  accelerator?: string;
  enabled?: boolean;
  click?: (item: unknown, win: BrowserWindow | undefined, event: unknown) => void;
  submenu?: MenuItemOptions[] | Menu;
}
export class Menu {
  constructor(readonly items: MenuItemOptions[] = []) {}
  static buildFromTemplate(template: MenuItemOptions[]): Menu {
    const check = (items: MenuItemOptions[]) => {
      for (const it of items) {
        if (it.label === undefined && it.role === undefined && it.type === undefined) {
          throw new TypeError('Invalid template for MenuItem: must have at least one of label, role or type');
        }
        if (Array.isArray(it.submenu)) check(it.submenu);
      }
    };
    check(template);
    return new Menu(template);
  }
  static setApplicationMenu(menu: Menu | null): void {
    record.applicationMenu = menu;
  }
  static getApplicationMenu(): Menu | null {
    return record.applicationMenu;
  }
  snapshot(): MenuItemSnapshot[] {
    return this.items.map((it) => {
      const sub = it.submenu instanceof Menu ? it.submenu.items : it.submenu;
      const s: MenuItemSnapshot = {};
      if (it.label !== undefined) s.label = it.label;
      if (it.role !== undefined) s.role = it.role;
      if (it.type !== undefined) s.type = it.type;
      if (it.accelerator !== undefined) s.accelerator = it.accelerator;
      if (it.enabled !== undefined) s.enabled = it.enabled;
      if (sub) s.submenu = new Menu(sub).snapshot();
      return s;
    });
  }
  /** The item reached by following labels (for the driver's menu.click). */
  find(path: string[]): MenuItemOptions | undefined {
    let items = this.items;
    let found: MenuItemOptions | undefined;
    for (const label of path) {
      found = items.find((i) => i.label === label);
      if (!found) return undefined;
      items = found.submenu instanceof Menu ? found.submenu.items : (found.submenu ?? []);
    }
    return found;
  }
}

// ---------------------------------------------------------------------------------------------
// shell, clipboard, dialog

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
  },
});

// ---------------------------------------------------------------------------------------------
// For boot.ts and driver.ts only (not part of Electron's API).

/** A copy that crosses a structured clone: functions and class instances other than plain data left out. */
function plain(v: unknown): unknown {
  if (typeof v === 'function') return undefined;
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === 'object') {
    if (v instanceof BrowserWindow) return { browserWindow: v.id };
    return Object.fromEntries(Object.entries(v).filter(([, x]) => typeof x !== 'function').map(([k, x]) => [k, plain(x)]));
  }
  return v;
}

export const standIn = {
  StandInEvent,
  record,
  ipcMain: ipcMainImpl,
  app: appImpl,
  setAppDir(dir: string, pkg: typeof appPackage): void {
    appDir = dir;
    appPackage = pkg;
  },
  setNotifier(fn: (m: FromApp) => void): void {
    notify = fn;
  },
  onEnd(fn: (code: number) => void): void {
    endHooks.push(fn);
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
