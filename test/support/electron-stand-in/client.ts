// The test's side: installs the stand-in where a packaged app resolves `electron`, starts the app
// on it as a child process, and drives it (protocol.ts).
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { AppSnapshot, DriverOp, FromApp, SenderKind } from './protocol.js';

const HERE = dirname(fileURLToPath(import.meta.url));
/** The Electron version the app is built against (its package.json only: the module itself cannot load here). */
const ELECTRON_VERSION = (JSON.parse(readFileSync(createRequire(import.meta.url).resolve('electron/package.json'), 'utf8')) as { version: string }).version;

/**
 * Bundles the stand-in into <appDir>/node_modules/electron/ (index.js is the `electron` module,
 * boot.js plays the Electron binary). The app's own `import … from 'electron'` then resolves to
 * it by Node's ordinary lookup, exactly as it resolves its other dependencies there.
 */
export async function installStandIn(appDir: string): Promise<string> {
  const dir = join(appDir, 'node_modules/electron');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'electron', version: '0.0.0-stand-in', type: 'module', main: 'index.js', exports: { '.': './index.js' } }));
  const keepIndexExternal = {
    name: 'index-external',
    setup(b: { onResolve(o: { filter: RegExp }, cb: () => { path: string; external: boolean }): void }) {
      b.onResolve({ filter: /^\.\/index\.js$/ }, () => ({ path: './index.js', external: true }));
    },
  };
  const common = { bundle: true, platform: 'node', format: 'esm', target: 'node20', logLevel: 'warning' } as const;
  await build({ ...common, entryPoints: [join(HERE, 'index.ts')], outfile: join(dir, 'index.js') });
  // boot.js shares index.js's module instance (the one the app imports), not a copy of it.
  await build({ ...common, entryPoints: [join(HERE, 'boot.ts')], outfile: join(dir, 'boot.js'), plugins: [keepIndexExternal] });
  return join(dir, 'boot.js');
}

export interface RunningApp {
  child: ChildProcess;
  /** Everything the app wrote to stdout and stderr so far. */
  output(): string;
  call<T = unknown>(op: DriverOp): Promise<T>;
  snapshot(): Promise<AppSnapshot>;
  invoke(as: SenderKind, channel: string, ...args: unknown[]): Promise<unknown>;
  /** Resolves with the first note of this kind (already received ones count). */
  note(kind: 'window-created' | 'quit' | 'second-instance', timeoutMs?: number): Promise<unknown>;
  /** webContents.send calls, for the renderer side of a test. */
  onSent(listener: (channel: string, args: unknown[]) => void): void;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(): void;
}

export function startApp(boot: string, appDir: string, env: NodeJS.ProcessEnv): RunningApp {
  const childEnv: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('VITEST') && k !== 'NODE_OPTIONS') childEnv[k] = v;
  const child = fork(boot, [appDir], { cwd: appDir, env: { ...childEnv, ELECTRON_STAND_IN_VERSION: ELECTRON_VERSION, ...env }, stdio: ['ignore', 'pipe', 'pipe', 'ipc'], serialization: 'advanced', execArgv: [] });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  const notes: Array<{ kind: string; detail?: unknown }> = [];
  const noteWaiters: Array<{ kind: string; resolve(v: unknown): void }> = [];
  const sentListeners: Array<(channel: string, args: unknown[]) => void> = [];
  let nextId = 1;
  child.on('message', (m: FromApp) => {
    if (m.t === 'reply') {
      const p = pending.get(m.id);
      pending.delete(m.id);
      if (m.ok) p?.resolve(m.value);
      else p?.reject(new Error(`app-side driver error: ${m.error}`));
    } else if (m.t === 'note') {
      notes.push(m);
      for (const w of noteWaiters.filter((x) => x.kind === m.kind)) w.resolve(m.detail);
    } else if (m.t === 'sent') {
      for (const l of sentListeners) l(m.channel, m.args);
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      for (const p of pending.values()) p.reject(new Error(`the app exited (${code ?? signal}) before answering:\n${output}`));
      pending.clear();
      resolve({ code, signal });
    }),
  );
  const app: RunningApp = {
    child,
    output: () => output,
    call<T>(op: DriverOp): Promise<T> {
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        if (!child.connected) return reject(new Error(`the app has closed its channel (quit or crashed); cannot ${op.op}. Its output:\n${output}`));
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        child.send({ t: 'call', id, ...op }, (err) => {
          if (!err) return;
          pending.delete(id);
          reject(new Error(`could not send ${op.op} to the app: ${err.message}`));
        });
      });
    },
    snapshot: () => app.call<AppSnapshot>({ op: 'snapshot' }),
    invoke: (as, channel, ...args) => app.call({ op: 'invoke', channel, args, as }),
    note(kind, timeoutMs = 15_000) {
      const seen = notes.find((n) => n.kind === kind);
      if (seen) return Promise.resolve(seen.detail);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no '${kind}' from the app within ${timeoutMs} ms; its output:\n${output}`)), timeoutMs);
        noteWaiters.push({ kind, resolve: (v) => (clearTimeout(timer), resolve(v)) });
        void exited.then(({ code, signal }) => {
          clearTimeout(timer);
          if (!notes.some((n) => n.kind === kind)) reject(new Error(`the app exited (${code ?? signal}) before '${kind}'; its output:\n${output}`));
        });
      });
    },
    onSent: (l) => sentListeners.push(l),
    exited,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
  return app;
}

/** The exit within `ms`, or null if the process is still running then. */
export async function exitWithin(app: RunningApp, ms: number): Promise<{ code: number | null; signal: NodeJS.Signals | null } | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((r) => (timer = setTimeout(() => r(null), ms)));
  const r = await Promise.race([app.exited, timeout]);
  clearTimeout(timer);
  return r;
}
