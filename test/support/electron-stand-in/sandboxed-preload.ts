/**
 * Runs a preload bundle the way Electron runs a preload in a sandboxed renderer, in a `vm`
 * context holding only what that environment offers (Electron docs, "Process Sandboxing" →
 * "Preload scripts"): a `require` that knows 'electron' (contextBridge, crashReporter,
 * ipcRenderer, nativeImage, webFrame, webUtils) and Node's 'events', 'timers' and 'url' (also as
 * node:…), and nothing else, not even a relative file; a `process` with a few fields and no
 * binding(); Buffer, global, setImmediate, clearImmediate; and the page's web globals. There is
 * no fs, no child_process, no module loader. `contextBridge.exposeInMainWorld` copies the API
 * as the bridge does (functions proxied, plain objects copied), into `exposed`.
 */
import events from 'node:events';
import timers from 'node:timers';
import url from 'node:url';
import vm from 'node:vm';

export interface RendererIpc {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  /** The listener receives (event, ...args) like ipcRenderer's. */
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): void;
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): void;
}

export interface PreloadRun {
  /** What the preload put on `window` with contextBridge.exposeInMainWorld. */
  exposed: Record<string, unknown>;
  /** Every module name the preload asked require() for, allowed or not. */
  required: string[];
}

const ALLOWED_NODE = new Set(['events', 'timers', 'url']);

export function runSandboxedPreload(code: string, filename: string, ipc: RendererIpc, pathForFile: (file: unknown) => string): PreloadRun {
  const exposed: Record<string, unknown> = {};
  const required: string[] = [];
  const electron = Object.freeze({
    contextBridge: Object.freeze({
      exposeInMainWorld(key: string, api: unknown) {
        if (key in exposed) throw new Error(`Cannot bind an API on top of an existing property on the window object`);
        exposed[key] = bridgeCopy(api);
      },
    }),
    ipcRenderer: Object.freeze({
      invoke: (channel: string, ...args: unknown[]) => ipc.invoke(channel, ...args),
      on(channel: string, listener: (event: unknown, ...args: unknown[]) => void) {
        ipc.on(channel, listener);
        return this;
      },
      removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void) {
        ipc.removeListener(channel, listener);
        return this;
      },
    }),
    webUtils: Object.freeze({ getPathForFile: (file: unknown) => pathForFile(file) }),
    crashReporter: Object.freeze({}),
    nativeImage: Object.freeze({}),
    webFrame: Object.freeze({}),
  });
  const sandboxRequire = (name: string): unknown => {
    required.push(name);
    if (name === 'electron') return electron;
    const bare = name.startsWith('node:') ? name.slice(5) : name;
    if (ALLOWED_NODE.has(bare)) return { events, timers, url }[bare];
    throw new Error(`module not found: ${name}`);
  };
  const sandboxProcess = Object.freeze({
    type: 'renderer',
    sandboxed: true,
    contextIsolated: true,
    platform: process.platform,
    arch: process.arch,
    pid: 4242,
    argv: Object.freeze([] as string[]),
    execPath: '/opt/Capture Desk/capture-desk',
    env: Object.freeze({}),
    version: process.version,
    versions: Object.freeze({ ...process.versions, electron: '45.0.0', chrome: '140.0.0.0' }),
    uptime: () => process.uptime(),
    getCreationTime: () => null,
    getHeapStatistics: () => ({}),
    getSystemVersion: () => '',
  });
  // The page's web globals (the preload runs in an isolated world of a Chromium renderer).
  const context = vm.createContext({
    console,
    setTimeout,
    clearTimeout,
    setInterval,
    clearInterval,
    queueMicrotask,
    structuredClone,
    URL,
    TextEncoder,
    TextDecoder,
    Blob,
    File,
  });
  vm.runInContext('globalThis.window = globalThis; globalThis.self = globalThis;', context);
  const wrapper = vm.runInContext(`(function (require, process, Buffer, global, setImmediate, clearImmediate, exports, module) {${code}\n})`, context, { filename }) as (
    ...args: unknown[]
  ) => void;
  const module = { exports: {} };
  wrapper(sandboxRequire, sandboxProcess, Buffer, vm.runInContext('globalThis', context), setImmediate, clearImmediate, module.exports, module);
  return { exposed, required };
}

/** contextBridge's copy: functions become proxies into the preload world, plain data is copied, Blobs/Files pass. */
function bridgeCopy(v: unknown): unknown {
  if (typeof v === 'function') return (...args: unknown[]) => (v as (...a: unknown[]) => unknown)(...args.map(bridgeCopy));
  if (Array.isArray(v)) return v.map(bridgeCopy);
  if (v instanceof Blob || v instanceof Uint8Array || v instanceof Promise) return v;
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, bridgeCopy(x)]));
  return v;
}
