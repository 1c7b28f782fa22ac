// The app's side of the test's remote control: answers DriverOps sent over the child's IPC
// channel, acting as a user or a renderer would (invoke from a page, move or close the window).
import type { DriverOp, FromApp, SenderKind, ToApp } from './protocol.js';
import { BrowserWindow, Menu, WebContents, standIn } from './index.js';

export function installDriver(): void {
  if (!process.send) return; // started by hand: nothing to drive
  const send = (m: FromApp) => {
    if (process.connected) process.send!(m);
  };
  standIn.setNotifier(send);
  const onMessage = (m: ToApp) => {
    if (m?.t !== 'call') return;
    Promise.resolve()
      .then(() => run(m))
      .then(
        (value) => send({ t: 'reply', id: m.id, ok: true, value }),
        (err: unknown) => send({ t: 'reply', id: m.id, ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
      );
  };
  process.on('message', onMessage);
  // Where Electron would end the process: say so, then let go of the channel (it is a handle too).
  standIn.onEnd((code) => {
    process.off('message', onMessage);
    if (!process.connected) return;
    process.send!({ t: 'note', kind: 'quit', detail: { code } } satisfies FromApp, () => process.disconnect());
  });
}

function mainWindow(): BrowserWindow {
  const w = BrowserWindow.getAllWindows()[0];
  if (!w) throw new Error('the app has no window');
  return w;
}

async function run(m: DriverOp): Promise<unknown> {
  switch (m.op) {
    case 'snapshot':
      return standIn.snapshot();
    case 'invoke':
      return invoke(m.channel, m.args, m.as);
    case 'window.setBounds':
      mainWindow().setBounds(m.bounds);
      return mainWindow().getBounds();
    case 'window.maximize':
      mainWindow().maximize();
      return null;
    case 'window.close':
      mainWindow().close();
      return null;
    case 'window.navigate': {
      const e = new standIn.StandInEvent();
      mainWindow().webContents.emit('will-navigate', e, m.url);
      return { prevented: e.defaultPrevented };
    }
    case 'window.open': {
      const handler = mainWindow().webContents.windowOpenHandler;
      if (!handler) return { action: 'allow' };
      return handler({ url: m.url, frameName: '', features: '', disposition: 'foreground-tab' });
    }
    case 'permission': {
      const handler = standIn.record.permissionRequestHandler;
      if (!handler) return { granted: true }; // Electron's default grants
      return new Promise((resolve) => handler(mainWindow().webContents, m.permission, (granted) => resolve({ granted }), {}));
    }
    case 'menu.click': {
      const menu = Menu.getApplicationMenu();
      const item = menu?.find(m.path);
      if (!item) throw new Error(`no menu item ${m.path.join(' › ')}`);
      if (!item.click) throw new Error(`menu item ${m.path.join(' › ')} has no click handler (a role item?)`);
      await item.click(item, mainWindow(), {});
      return null;
    }
    case 'app.quit':
      standIn.app.quit();
      return null;
  }
}

/** ipcRenderer.invoke as Electron delivers it to ipcMain.handle: an event naming the sender and its frame. */
async function invoke(channel: string, args: unknown[], as: SenderKind): Promise<unknown> {
  const handler = standIn.ipcMain.handlers.get(channel);
  if (!handler) throw new Error(`No handler registered for '${channel}'`);
  let sender: WebContents;
  let url: string;
  if (as === 'foreign-contents') {
    sender = new WebContents(); // e.g. a web contents a bug or a popup created, not one of our windows
    url = mainWindow().webContents.url;
  } else {
    sender = mainWindow().webContents;
    url = as === 'window' ? sender.url : 'https://attacker.example/page.html';
  }
  const event = { sender, senderFrame: { url, routingId: 1, processId: 1 }, frameId: 1, processId: 1 };
  try {
    return await handler(event, ...args);
  } finally {
    if (as === 'foreign-contents') sender.destroy();
  }
}
