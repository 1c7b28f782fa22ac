// The Electron main process, run for real from the packaged layout. The Electron binary cannot be
// downloaded here, so the real dist/electron/main.js, extracted with everything else from the
// app.asar that an offline `electron-builder --linux dir` build made, runs under Node on a
// stand-in for the `electron` module (test/support/electron-stand-in). The core behind it is the
// real one, with the real hardware adapters (serialport, keytar, the audio capture process), on a
// temp data folder. The preload bundle runs in a vm context with only what Electron's sandboxed
// preloads get. This does not replace starting the app; it catches what a typecheck cannot:
// a wrong path in the package, a preload that needs Node, an IPC handler that trusts anyone,
// a quit that leaves the process hanging.
//
// Needs the app's build output (`npm run build`) and the test environment (bash test/env.sh:
// D-Bus + keyring for keytar, PulseAudio for the microphone).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { extractAll } from '@electron/asar';
import { build as esbuild } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppInfo, CallResult, LiveModelStatus, ManualIndex, ManualPage, ModelEntry, Sample, Source } from '../../src-main/core/contract/contract.js';
import { PRESETS, writeTestModel } from '../support/models/test-model.mjs';
import { CALL_CHANNEL, EVENT_CHANNEL, type CaptureDeskBridge } from '../../src-main/electron/bridge.js';
import { WINDOW_STATE_FILE } from '../../src-main/electron/window-state.js';
import { encodeCbor, sensorDoc } from '../support/ingestion-server/fixtures.js';
import { exitWithin, installStandIn, startApp, type RunningApp } from '../support/electron-stand-in/client.js';
import { runSandboxedPreload, type RendererIpc } from '../support/electron-stand-in/sandboxed-preload.js';
import { buildLinuxDir, type LinuxDirBuild } from './linux-dir.js';

let pack: LinuxDirBuild;
let appDir: string; // the extracted app.asar (+ app.asar.unpacked): what Electron loads as the app
let boot: string;
let work: string;
const running: RunningApp[] = [];

beforeAll(async () => {
  pack = await buildLinuxDir({ prefix: 'cd-electron-main-' });
  work = mkdtempSync(join(pack.work, 'run-'));
  appDir = join(work, 'app');
  extractAll(pack.asarPath, appDir); // also copies the unpacked native files from app.asar.unpacked
  boot = await installStandIn(appDir);
}, 180_000);

afterAll(() => {
  for (const a of running) a.kill();
  pack?.dispose();
});

function start(userData: string, env: NodeJS.ProcessEnv = {}): RunningApp {
  const app = startApp(boot, appDir, { ELECTRON_STAND_IN_USER_DATA: userData, ...env });
  running.push(app);
  return app;
}

async function call<T>(app: RunningApp, method: string, input: unknown = {}): Promise<T> {
  const r = (await app.invoke('window', CALL_CHANNEL, method, input)) as CallResult;
  if (!r.ok) throw new Error(`${method}: ${r.error.code}: ${r.error.message}`);
  return r.value as T;
}

/** A renderer for `app`: the packaged preload in a sandbox-like vm, its ipcRenderer wired to the app's ipcMain. */
function renderer(app: RunningApp, files = new Map<unknown, string>()) {
  const listeners = new Map<string, Set<(event: unknown, ...args: unknown[]) => void>>();
  app.onSent((channel, args) => {
    for (const l of listeners.get(channel) ?? []) l({ sender: 'ipcRenderer' }, ...args);
  });
  const ipc: RendererIpc = {
    invoke: (channel, ...args) => app.invoke('window', channel, ...args),
    on: (channel, l) => void (listeners.get(channel) ?? listeners.set(channel, new Set()).get(channel)!).add(l),
    removeListener: (channel, l) => void listeners.get(channel)?.delete(l),
  };
  const preload = join(appDir, 'dist/electron/preload.cjs');
  const run = runSandboxedPreload(readFileSync(preload, 'utf8'), preload, ipc, (f) => files.get(f) ?? '');
  return { ...run, bridge: run.exposed.captureDesk as CaptureDeskBridge, listeners };
}

describe('Electron main process from the packaged app.asar', () => {
  const userData = () => join(work, 'user-data');
  let app: RunningApp;

  it('ships no electron module of its own (Electron provides it), and its package.json names the main bundle', () => {
    expect(pack.entries.filter((e) => e.startsWith('/node_modules/electron/'))).toEqual([]);
    const pkg = JSON.parse(readFileSync(join(appDir, 'package.json'), 'utf8')) as { main: string; type: string };
    expect(pkg).toMatchObject({ main: 'dist/electron/main.js', type: 'module' });
    expect(pack.entries).toContain('/dist/electron/main.js');
  });

  it('starts: sandbox on before ready, the real core on the data folder, a locked-down window', async () => {
    app = start(userData());
    await app.note('window-created');
    const info = await call<AppInfo>(app, 'app.info');
    expect(info).toMatchObject({ shell: 'electron', dataDir: userData(), name: 'Capture Desk' });
    expect(existsSync(join(userData(), 'samples.db'))).toBe(true);
    const snap = await app.snapshot();
    expect(snap).toMatchObject({ ready: true, sandboxEnabledBeforeReady: true, hasSingleInstanceLock: true, ipcHandlers: [CALL_CHANNEL], hasPermissionRequestHandler: true });
    expect(snap.windows).toHaveLength(1);
    const win = snap.windows[0]!;
    expect(win.options.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true });
    expect(win.hasWindowOpenHandler).toBe(true);
    expect(snap.applicationMenu?.length).toBeGreaterThan(0);
    expect(app.output()).not.toMatch(/"level":"error"/);
  }, 30_000);

  it('points the window at a renderer page and a preload that exist inside app.asar, with every asset the page loads', async () => {
    const win = (await app.snapshot()).windows[0]!;
    const preload = (win.options.webPreferences as { preload: string }).preload;
    expect(preload).toBe(join(appDir, 'dist/electron/preload.cjs'));
    expect(win.loadedFile).toBe(join(appDir, 'dist/renderer/index.html'));
    expect(win.url).toBe(pathToFileURL(join(appDir, 'dist/renderer/index.html')).href);
    for (const file of [preload, win.loadedFile!]) expect(pack.entries).toContain('/' + relative(appDir, file));
    // The page's scripts and styles are relative to it (Vite's base './'): an absolute /assets/ would miss under file://.
    const html = readFileSync(win.loadedFile!, 'utf8');
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((r) => !r.startsWith('data:'));
    expect(refs.length).toBeGreaterThanOrEqual(2);
    for (const ref of refs) expect(pack.entries, ref).toContain('/' + relative(appDir, fileURLToPath(new URL(ref, win.url))));
    expect(win.visible).toBe(true); // shown on ready-to-show
  });

  it('forks the audio capture program from inside the package, and it finds the microphone', async () => {
    // worker-link.ts resolves ../audio/capture-worker.js from the main bundle; in an install that is
    // inside app.asar, which Electron's Node mode (ELECTRON_RUN_AS_NODE=1) reads like a folder.
    const worker = fileURLToPath(new URL('../audio/capture-worker.js', pathToFileURL(join(appDir, 'dist/electron/main.js'))));
    expect(pack.entries).toContain('/' + relative(appDir, worker));
    const sources = await call<Source[]>(app, 'sources.list');
    expect(sources.filter((s) => s.kind === 'audio').length, `no microphone listed (run under bash test/env.sh for PulseAudio); app output:\n${app.output()}`).toBeGreaterThan(0);
  }, 20_000);

  it("starts a model export in the packaged model worker thread, and runs it on a live source", async () => {
    // model-runner.ts resolves ../model/model-worker.js from the main bundle (the unpacked copy in an install).
    const exportDir = join(work, 'gesture-export');
    await writeTestModel(exportDir, PRESETS.gestureNew);
    const m = await call<ModelEntry>(app, 'models.add', { path: exportDir, name: 'gestures' });
    expect(m).toMatchObject({ name: 'gestures', status: 'ready', description: { axes: 3, frequencyHz: 62.5, labels: ['idle', 'wave'] } });
    await call(app, 'stream.start', { sourceId: 'simulated:imu', rateHz: 62.5 });
    const live = await call<LiveModelStatus>(app, 'model.live.start', { sourceId: 'simulated:imu', model: 'gestures', strideMs: 250 });
    expect(live).toMatchObject({ state: 'running', model: 'gestures' });
    const deadline = Date.now() + 15_000;
    let windows = 0;
    while (Date.now() < deadline && windows < 2) {
      await new Promise((r) => setTimeout(r, 200));
      windows = (await call<LiveModelStatus[]>(app, 'model.live.status'))[0]?.windows ?? 0;
    }
    expect(windows, `no window classified; app output:\n${app.output()}`).toBeGreaterThanOrEqual(2);
    expect(await call(app, 'model.live.stop', { sourceId: 'simulated:imu' })).toEqual({ stopped: true });
    await call(app, 'stream.stop', { sourceId: 'simulated:imu' });
  }, 30_000);

  it('refuses IPC from a web contents that is not its window, and from its window showing another page', async () => {
    for (const as of ['foreign-contents', 'foreign-frame'] as const) {
      const r = (await app.invoke(as, CALL_CHANNEL, 'app.info', {})) as CallResult;
      expect(r, as).toEqual({ ok: false, error: { code: 'Unauthorized', message: expect.any(String) } });
    }
  });

  it('denies every permission request, opens allowed links in the browser and blocks navigation away', async () => {
    expect(await app.call({ op: 'permission', permission: 'media' })).toEqual({ granted: false });
    expect(await app.call({ op: 'window.open', url: 'https://example.invalid/evil' })).toEqual({ action: 'deny' });
    expect(await app.call({ op: 'window.navigate', url: 'https://example.invalid/evil' })).toEqual({ prevented: true });
    expect((await app.snapshot()).shellCalls.filter((c) => c.arg.includes('example.invalid'))).toEqual([]);
  });

  it('runs the packaged preload with only what a sandboxed preload gets, and its bridge reaches the core and back', async () => {
    const sample = join(work, 'idle.07.cbor');
    writeFileSync(sample, encodeCbor(sensorDoc()));
    const dropped = new File([readFileSync(sample)], 'idle.07.cbor');
    const r = renderer(app, new Map([[dropped, sample]]));
    expect(r.required).toEqual(['electron']);
    expect(Object.keys(r.exposed)).toEqual(['captureDesk']);
    expect(Object.keys(r.bridge).sort()).toEqual(['call', 'onEvent', 'pathForFile']);

    const info = (await r.bridge.call('app.info', {})) as CallResult;
    expect(info).toMatchObject({ ok: true, value: { shell: 'electron', dataDir: userData() } });

    // Events travel back: webContents.send → the preload's ipcRenderer listener → the page's callback.
    const events: Array<[string, unknown]> = [];
    const off = r.bridge.onEvent((name, payload) => events.push([name, payload]));
    await r.bridge.call('settings.set', { deviceName: 'bench-07' });
    await expect.poll(() => events.find(([n]) => n === 'settings.changed')?.[1]).toMatchObject({ deviceName: 'bench-07' });
    off();
    expect(r.listeners.get(EVENT_CHANNEL)?.size).toBe(0);

    // A dropped file: its path from webUtils, then added where it lies.
    const path = r.bridge.pathForFile(dropped);
    expect(path).toBe(sample);
    const added = (await r.bridge.call('samples.addPaths', { paths: [path], category: 'training' })) as CallResult;
    expect(added).toMatchObject({ ok: true, value: { results: [{ status: 'added', sample: { file: sample, label: 'idle' } }] } });
    expect(r.bridge.pathForFile(new File(['x'], 'pasted.csv'))).toBe(''); // not on disk: the byte path applies
  });

  it('would catch a preload that needs Node: the sandbox refuses fs and has no process.binding', async () => {
    const bundle = async (source: string) => {
      const dir = mkdtempSync(join(work, 'preload-'));
      writeFileSync(join(dir, 'preload.ts'), source);
      // The same esbuild settings as the real preload (esbuild.config.mjs).
      await esbuild({ entryPoints: [join(dir, 'preload.ts')], bundle: true, platform: 'node', format: 'cjs', packages: 'external', outfile: join(dir, 'preload.cjs'), logLevel: 'silent' });
      return readFileSync(join(dir, 'preload.cjs'), 'utf8');
    };
    const ipc: RendererIpc = { invoke: async () => null, on: () => {}, removeListener: () => {} };
    const needsFs = await bundle(`import { readFileSync } from 'node:fs';\nimport { contextBridge } from 'electron';\ncontextBridge.exposeInMainWorld('x', { host: () => readFileSync('/etc/hostname', 'utf8') });\n`);
    expect(() => runSandboxedPreload(needsFs, 'needs-fs.cjs', ipc, () => '')).toThrow('module not found: node:fs');
    const needsBinding = await bundle(`(process as unknown as { binding(n: string): unknown }).binding('fs');\n`);
    expect(() => runSandboxedPreload(needsBinding, 'needs-binding.cjs', ipc, () => '')).toThrow('process.binding is not a function');
    // A preload shipped unbundled, split into files: the sandbox's require loads no files at all.
    const needsSibling = `const { contextBridge } = require('electron');\nrequire('./helpers.cjs');\ncontextBridge.exposeInMainWorld('x', {});\n`;
    expect(() => runSandboxedPreload(needsSibling, 'needs-sibling.cjs', ipc, () => '')).toThrow('module not found: ./helpers.cjs');
  });

  it('lets a second instance hand over to the first and quit without opening anything', async () => {
    const second = start(userData());
    const exit = await exitWithin(second, 10_000);
    expect(exit, second.output()).toEqual({ code: 0, signal: null });
    expect(second.output()).not.toContain('process.exit');
    expect(second.output()).not.toContain('"msg":"'); // never started the core (it logs JSON lines)
    await app.note('second-instance');
    await expect.poll(async () => (await app.snapshot()).windows[0]!.focusCount).toBeGreaterThan(0);
  }, 20_000);

  it('Help menu: opens the data and logs folders, copies diagnostics; the log goes to a file in logs/', async () => {
    await app.call({ op: 'menu.click', path: ['Help', 'Open Data Folder'] });
    await app.call({ op: 'menu.click', path: ['Help', 'Open Logs Folder'] });
    await app.call({ op: 'menu.click', path: ['Help', 'Copy Diagnostics'] });
    // Copying gathers the report first (ports, keychain, queue), so the clipboard fills a moment later.
    await expect.poll(async () => (await app.snapshot()).clipboard.length, { timeout: 12_000 }).toBeGreaterThan(0);
    const snap = await app.snapshot();
    expect(snap.shellCalls.filter((c) => c.fn === 'openPath').map((c) => c.arg)).toEqual([userData(), join(userData(), 'logs')]);
    const copied = snap.clipboard.at(-1) ?? '';
    expect(copied).toContain(userData());
    expect(copied).toMatch(/electron/i);
    expect(copied).toContain(process.versions.node);
    // Started from a desktop launcher, stderr is lost: the same JSON lines are in the log file.
    const logFile = join(userData(), 'logs', 'capture-desk.log');
    await expect.poll(() => existsSync(logFile) && readFileSync(logFile, 'utf8').length > 0, { timeout: 5_000 }).toBe(true);
    const lines = readFileSync(logFile, 'utf8').trim().split('\n');
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    expect(lines.map((l) => (JSON.parse(l) as { shell?: string }).shell)).toContain('electron');
  }, 20_000);

  it('Help → Manual (F1): the window is told to show the manual, and the core serves its pages from inside app.asar', async () => {
    const help = (await app.snapshot()).applicationMenu!.find((m) => m.role === 'help')!;
    expect(help.submenu![0]).toMatchObject({ label: 'Manual', accelerator: 'F1' });
    const sent: unknown[][] = [];
    app.onSent((channel, args) => {
      if (channel === EVENT_CHANNEL) sent.push(args);
    });
    await app.call({ op: 'menu.click', path: ['Help', 'Manual'] });
    await expect.poll(() => sent, { timeout: 5_000 }).toContainEqual(['app.showHelp', { panel: 'manual' }]);
    // What the Manual view then asks for, over the same IPC as everything else.
    const index = await call<ManualIndex>(app, 'manual.index');
    expect(index.pages[0]).toEqual({ name: 'index', title: 'Capture Desk manual' });
    expect(index.pages.map((p) => p.name)).toEqual(expect.arrayContaining(['getting-started', 'serial-boards', 'cli', 'for-developers']));
    const page = await call<ManualPage>(app, 'manual.page', { name: 'finding-samples' });
    expect(page.markdown).toBe(readFileSync(join(appDir, 'resources/manual/finding-samples.md'), 'utf8'));
    expect(Object.keys(page.images)).toEqual(['../readme/find-samples.png']);
    expect(page.images['../readme/find-samples.png']).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
  }, 20_000);

  it('closing the window quits: will-quit closes the core, and the process ends by itself with nothing left open', async () => {
    await app.call({ op: 'window.setBounds', bounds: { x: 140, y: 60, width: 1100, height: 700 } });
    await app.call({ op: 'window.close' });
    const exit = await exitWithin(app, 8_000);
    expect(exit, `the app did not end within 8 s after quitting (a handle left open?); output:\n${app.output()}`).toEqual({ code: 0, signal: null });
    expect(app.output()).not.toContain('process.exit');
    expect(app.output()).not.toContain('app.exit');
    expect(existsSync(join(userData(), 'SingletonLock'))).toBe(false);
    // The window's last place was saved as it closed.
    expect(JSON.parse(readFileSync(join(userData(), WINDOW_STATE_FILE), 'utf8'))).toEqual({ bounds: { x: 140, y: 60, width: 1100, height: 700 }, maximized: false });
  }, 20_000);

  it('reopens the window where it was, and maximized if it was', async () => {
    const again = start(userData());
    await again.note('window-created');
    let win = (await again.snapshot()).windows[0]!;
    expect(win.options).toMatchObject({ x: 140, y: 60, width: 1100, height: 700 });
    expect(win.maximized).toBe(false);
    const listed = await call<{ samples: Sample[] }>(again, 'samples.list');
    expect(listed.samples.map((s) => s.name)).toEqual(['idle.07.cbor']); // the same data folder and index
    await again.call({ op: 'window.maximize' });
    await again.call({ op: 'app.quit' });
    expect(await exitWithin(again, 8_000), again.output()).toEqual({ code: 0, signal: null });

    // Third start, and the second monitor it was on has gone: maximized again, normal bounds on screen.
    const third = start(userData());
    await third.note('window-created');
    await expect.poll(async () => (await third.snapshot()).windows[0]!.maximized).toBe(true);
    win = (await third.snapshot()).windows[0]!;
    expect(win.options).toMatchObject({ x: 140, y: 60, width: 1100, height: 700 });
    await third.call({ op: 'app.quit' });
    expect(await exitWithin(third, 8_000), third.output()).toEqual({ code: 0, signal: null });
  }, 40_000);

  it('moves a window saved on a display that is gone onto the one attached now', async () => {
    writeFileSync(join(userData(), WINDOW_STATE_FILE), JSON.stringify({ bounds: { x: 2400, y: 100, width: 1200, height: 800 }, maximized: false }));
    const laptopOnly = JSON.stringify([{ bounds: { x: 0, y: 0, width: 1366, height: 768 }, workArea: { x: 0, y: 0, width: 1366, height: 728 } }]);
    const moved = start(userData(), { ELECTRON_STAND_IN_DISPLAYS: laptopOnly });
    await moved.note('window-created');
    const win = (await moved.snapshot()).windows[0]!;
    expect(win.options).toMatchObject({ x: 83, y: 0, width: 1200, height: 728 });
    await moved.call({ op: 'app.quit' });
    expect(await exitWithin(moved, 8_000), moved.output()).toEqual({ code: 0, signal: null });
  }, 20_000);

  it('a data folder that cannot be used: an error box names the folder, the app exits 1 without a window', async () => {
    // A file where the samples folder should be (a sync tool's conflict copy, a stray download).
    const blocked = join(work, 'user-data-blocked');
    mkdirSync(blocked);
    writeFileSync(join(blocked, 'samples'), 'not a folder');
    const broken = start(blocked);
    expect(await exitWithin(broken, 15_000), broken.output()).toEqual({ code: 1, signal: null });
    const box = /dialog\.showErrorBox: (.*)/.exec(broken.output());
    expect(box, broken.output()).not.toBeNull();
    const { title, content } = JSON.parse(box![1]!) as { title: string; content: string };
    expect(title).toBe('Capture Desk could not start');
    expect(content).toContain(blocked);
    expect(broken.output()).not.toContain('window-created');
  }, 20_000);

  it('negative control: the same quit with core.close() skipped leaves the process running', async () => {
    // Proves the exit checks above can fail: without closing the core its timers, watchers and
    // capture process keep Node alive, as they would keep a real Electron app from quitting cleanly.
    const main = join(appDir, 'dist/electron/main.js');
    const original = readFileSync(main, 'utf8');
    expect(original.split('core.close()').length - 1).toBe(1);
    writeFileSync(main, original.replace('core.close()', 'Promise.resolve()'));
    try {
      const data = join(work, 'user-data-control');
      mkdirSync(data);
      const leaky = start(data);
      await leaky.note('window-created');
      await call(leaky, 'app.info');
      await leaky.call({ op: 'window.close' });
      await leaky.note('quit'); // the stand-in let go of everything it holds…
      expect(await exitWithin(leaky, 4_000)).toBeNull(); // …and the process still runs
      leaky.kill();
    } finally {
      writeFileSync(main, original);
      rmSync(join(work, 'user-data-control'), { recursive: true, force: true });
    }
  }, 30_000);
});
