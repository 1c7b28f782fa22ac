// Electron's `app`: lifecycle, paths, the single-instance lock and the quit sequence.
import { EventEmitter } from 'node:events';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { hooks, record, StandInEvent, strict } from './common.js';
import { SingletonLock } from './singleton.js';
import { BrowserWindow } from './windows.js';

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
    return hooks.appPackage.productName ?? hooks.appPackage.name ?? 'Electron';
  }
  getVersion(): string {
    return hooks.appPackage.version ?? '0.0.0';
  }
  getAppPath(): string {
    return hooks.appDir;
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
      hooks.notify({ t: 'note', kind: 'second-instance', detail: { argv, cwd } });
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
    hooks.onEnd.forEach((fn) => fn(code));
  }
  focus(): void {}
}

export const appImpl = new App();
export const app = strict('app', appImpl);

/** Electron refuses some modules before 'ready'; so does the stand-in. */
export function requireReady(module: string): void {
  if (!appImpl.isReady()) throw new Error(`The '${module}' module can't be used before the app 'ready' event`);
}
