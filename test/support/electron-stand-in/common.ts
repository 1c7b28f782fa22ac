// What the stand-in's modules share: the recorder a test reads, the hook to the driver, and
// helpers that make it behave like Electron (strict objects, preventable events, displays).
import type { FromApp } from './protocol.js';
import type { Menu } from './menu.js';
import type { PermissionHandler } from './services.js';

/** Unknown members throw instead of reading as undefined, so a new Electron call shows up here first. */
export function strict<T extends object>(name: string, target: T): T {
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
export class StandInEvent {
  defaultPrevented = false;
  preventDefault(): void {
    this.defaultPrevented = true;
  }
}

export type Rect = { x: number; y: number; width: number; height: number };
export interface StandInDisplay {
  id: number;
  bounds: Rect;
  workArea: Rect;
  scaleFactor: number;
}

/** Everything the app did that a test may ask about (driver.ts snapshot). */
export const record = {
  sandboxEnabled: false,
  sandboxEnabledBeforeReady: false,
  applicationMenu: null as Menu | null,
  shellCalls: [] as Array<{ fn: string; arg: string }>,
  clipboard: [] as string[],
  dialogs: [] as Array<{ fn: string; args: unknown[] }>,
  appEvents: [] as string[],
  permissionRequestHandler: null as PermissionHandler | null,
};

/** Set by boot.ts (the app folder) and driver.ts (where notes go). */
export const hooks = {
  notify: (_m: FromApp): void => {},
  appDir: process.cwd(),
  appPackage: {} as { name?: string; productName?: string; version?: string },
  /** Run where Electron would end the process (App.#end). */
  onEnd: [] as Array<(code: number) => void>,
};

/** The attached displays: one 1920×1080 unless ELECTRON_STAND_IN_DISPLAYS lists others (JSON [{bounds, workArea}]). */
export function displays(): StandInDisplay[] {
  const raw = process.env.ELECTRON_STAND_IN_DISPLAYS;
  const list = raw ? (JSON.parse(raw) as Array<{ bounds: Rect; workArea?: Rect }>) : [{ bounds: { x: 0, y: 0, width: 1920, height: 1080 }, workArea: { x: 0, y: 0, width: 1920, height: 1040 } }];
  return list.map((d, i) => ({ id: i + 1, bounds: d.bounds, workArea: d.workArea ?? d.bounds, scaleFactor: 1 }));
}

/** A copy that crosses a structured clone: functions left out, windows named by id. */
export function plain(v: unknown): unknown {
  if (typeof v === 'function') return undefined;
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === 'object') {
    if ('webContents' in v && 'id' in v) return { browserWindow: (v as { id: number }).id };
    return Object.fromEntries(Object.entries(v).filter(([, x]) => typeof x !== 'function').map(([k, x]) => [k, plain(x)]));
  }
  return v;
}
