import { app, BrowserWindow, clipboard, dialog, ipcMain, Menu, screen, session, shell, type WebContents } from 'electron';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { AudioSupervisor } from '../core/audio/audio-supervisor.js';
import { createCore, type Core } from '../core/app.js';
import { findManualDir } from '../core/handlers/manual.js';
import { LOG_FILE_NAMES, openAppLog } from '../core/logs/app-log.js';
import { serialportLister } from '../core/serial/serialport-lister.js';
import { keytarKeychain } from '../core/secrets/keychain.js';
import { serialportOpener } from '../core/serial/serialport-opener.js';
import { isAllowedExternalUrl } from './external-links.js';
import { EVENT_CHANNEL } from './bridge.js';
import { helpActions } from './help-actions.js';
import { bindIpc } from './ipc.js';
import { buildMenu } from './menu.js';
import { passCliThrough } from './cli-passthrough.js';
import { restorePlacement, trackWindowState, WINDOW_DEFAULTS } from './window-state.js';

// First: `Capture-Desk.AppImage samples list` runs the CLI and exits here (see cli-passthrough.ts).
passCliThrough(import.meta.url);

// Started from a desktop launcher, stderr goes nowhere: the log file is what a user can send.
const appLog = openAppLog({ dataDir: app.getPath('userData'), fileName: LOG_FILE_NAMES.electron, base: { shell: 'electron' } });
const log = appLog.log;
const rendererIndex = fileURLToPath(new URL('../renderer/index.html', import.meta.url));
const rendererUrl = pathToFileURL(rendererIndex).href;
const preload = fileURLToPath(new URL('./preload.cjs', import.meta.url));
const windows = new Set<BrowserWindow>();

app.enableSandbox();

// Two instances would fight over the same serial ports and upload queue.
if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    const w = [...windows][0];
    if (w) {
      if (w.isMinimized()) w.restore();
      w.focus();
    }
  });
  app.on('web-contents-created', (_e, contents) => lockDown(contents));
  void app.whenReady().then(start).catch((err: unknown) => {
    log.error('start-up failed', { error: String(err) });
    appLog.file.flushSync(); // app.exit() leaves no turn of the event loop for the buffered line
    // Started from a launcher nobody sees stderr: say what went wrong where the person is looking.
    const message = err instanceof Error ? err.message : String(err);
    dialog.showErrorBox('Capture Desk could not start', `${message}\n\nData folder: ${app.getPath('userData')}\nLog: ${appLog.logsDir}`);
    app.exit(1);
  });
}

async function start(): Promise<void> {
  // The renderer never needs camera, microphone or notifications from Chromium: capture runs here.
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  const dataDir = app.getPath('userData');
  const core = await createCore({ dataDir, shell: 'electron', hardware: { ports: serialportLister, keychain: keytarKeychain(), serial: serialportOpener, audio: new AudioSupervisor({ log }) }, log, secrets: appLog.secrets, manualDir: findManualDir(import.meta.url) });
  const unbind = bindIpc({
    core,
    ipcMain,
    log,
    isTrustedSender: (event) => {
      const owner = BrowserWindow.fromId(windowIdOf(event.sender.id) ?? -1);
      return owner !== null && windows.has(owner) && event.senderFrame?.url.split('#')[0] === rendererUrl;
    },
    targets: () => [...windows].map((w) => w.webContents),
  });
  const help = helpActions({
    dataDir,
    logsDir: appLog.logsDir,
    dispatch: core.dispatch,
    openPath: (p) => shell.openPath(p),
    writeText: (t) => clipboard.writeText(t),
    showHelp: (payload) => {
      const focused = BrowserWindow.getFocusedWindow();
      (focused && windows.has(focused) ? focused : [...windows][0])?.webContents.send(EVENT_CHANNEL, 'app.showHelp', payload);
    },
    log,
  });
  Menu.setApplicationMenu(buildMenu(Menu, help));
  createWindow();
  app.on('activate', () => {
    if (windows.size === 0) createWindow();
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('will-quit', (e) => shutdown(e, core, unbind));
}

let closing = false;
function shutdown(e: Electron.Event, core: Core, unbind: () => void): void {
  if (closing) return;
  closing = true;
  e.preventDefault();
  unbind();
  void core
    .close()
    .finally(() => appLog.close())
    .finally(() => app.quit());
}

function windowIdOf(webContentsId: number): number | undefined {
  for (const w of windows) if (w.webContents.id === webContentsId) return w.id;
  return undefined;
}

function createWindow(): void {
  const placement = restorePlacement(app.getPath('userData'), screen, log);
  const win = new BrowserWindow({
    ...placement.bounds,
    minWidth: WINDOW_DEFAULTS.minWidth,
    minHeight: WINDOW_DEFAULTS.minHeight,
    title: 'Capture Desk',
    show: false,
    webPreferences: {
      preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
    },
  });
  trackWindowState(win, app.getPath('userData'), log);
  windows.add(win);
  win.on('closed', () => windows.delete(win));
  win.once('ready-to-show', () => {
    // Not earlier: maximize() shows a hidden window, which would flash an empty frame.
    if (placement.maximized) win.maximize();
    win.show();
  });
  void win.loadFile(rendererIndex);
}

/** Applied to every web contents, including any a bug might create: no navigation, no popups. */
function lockDown(contents: WebContents): void {
  contents.on('will-navigate', (event, url) => {
    if (url !== rendererUrl) {
      event.preventDefault();
      openExternal(url);
    }
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    openExternal(url);
    return { action: 'deny' };
  });
}

function openExternal(url: string): void {
  if (isAllowedExternalUrl(url)) void shell.openExternal(url);
  else log.warn('blocked a link to a site that is not on the allowlist', { url: url.slice(0, 200) });
}
