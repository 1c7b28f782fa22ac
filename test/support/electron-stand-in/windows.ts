// Electron's BrowserWindow and webContents: recorded options, bounds and their events, page loads.
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { appImpl } from './app.js';
import { displays, hooks, plain, StandInEvent, strict, type Rect } from './common.js';
import type { WindowSnapshot } from './protocol.js';
import { defaultSession } from './services.js';

let nextWebContentsId = 1;
const allContents = new Map<number, WebContents>();

export type WindowOpenHandler = (details: { url: string; frameName: string; features: string; disposition: string }) => { action: 'allow' | 'deny' };

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
    hooks.notify({ t: 'sent', webContentsId: this.id, channel, args });
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
    hooks.notify({ t: 'note', kind: 'window-created', detail: { id: this.id } });
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