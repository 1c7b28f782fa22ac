import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCore } from '../../src-main/core/app.js';
import { createLogger } from '../../src-main/core/log.js';
import { CALL_CHANNEL, EVENT_CHANNEL } from '../../src-main/electron/bridge.js';
import { bindIpc, type IpcEventLike, type IpcMainLike } from '../../src-main/electron/ipc.js';
import { isAllowedExternalUrl } from '../../src-main/electron/external-links.js';
import { expectReached, sampleInputs } from '../support/contract-samples.js';
import { fixedPorts } from '../support/fake-hardware.js';
import { memoryKeychain } from '../../src-main/core/secrets/keychain.js';

// Electron cannot run here (its binary cannot be downloaded), so the IPC binding is tested with
// an ipcMain stand-in that has the same shape; the core behind it is the real one.
class FakeIpcMain implements IpcMainLike {
  handlers = new Map<string, (event: IpcEventLike, ...args: unknown[]) => Promise<unknown>>();
  handle(channel: string, listener: (event: IpcEventLike, ...args: unknown[]) => Promise<unknown>) {
    if (this.handlers.has(channel)) throw new Error('second handler for ' + channel);
    this.handlers.set(channel, listener);
  }
  removeHandler(channel: string) {
    this.handlers.delete(channel);
  }
  invoke(event: IpcEventLike, ...args: unknown[]) {
    return this.handlers.get(CALL_CHANNEL)!(event, ...args);
  }
}

const APP_URL = 'file:///opt/capture-desk/resources/app.asar/dist/renderer/index.html';

async function setup() {
  const lines: string[] = [];
  const core = await createCore({
    dataDir: join(await mkdtemp(join(tmpdir(), 'cd-ipc-')), 'data'),
    shell: 'electron',
    hardware: { ports: fixedPorts([]), keychain: memoryKeychain() },
    log: createLogger((l) => lines.push(l)),
  });
  const ipcMain = new FakeIpcMain();
  const sent: Array<[string, ...unknown[]]> = [];
  const unbind = bindIpc({
    core,
    ipcMain,
    log: createLogger((l) => lines.push(l)),
    isTrustedSender: (e) => e.sender.id === 1 && e.senderFrame?.url === APP_URL,
    targets: () => [{ isDestroyed: () => false, send: (ch, ...a) => sent.push([ch, ...a]) }],
  });
  return { core, ipcMain, sent, unbind, lines };
}

const trusted: IpcEventLike = { sender: { id: 1 }, senderFrame: { url: APP_URL } };

describe('Electron IPC binding', () => {
  it('registers one handler for the whole contract and reaches every method through it', async () => {
    const { ipcMain, core } = await setup();
    expect([...ipcMain.handlers.keys()]).toEqual([CALL_CHANNEL]);
    for (const [method, input] of Object.entries(sampleInputs)) {
      expectReached(await ipcMain.invoke(trusted, method, input), method);
    }
    await core.close();
  });

  it('drops calls from unknown senders and frames', async () => {
    const { ipcMain, lines, core } = await setup();
    const other = await ipcMain.invoke({ sender: { id: 2 }, senderFrame: { url: APP_URL } }, 'app.info', {});
    expect(other).toMatchObject({ ok: false, error: { code: 'Unauthorized' } });
    const navigated = await ipcMain.invoke({ sender: { id: 1 }, senderFrame: { url: 'https://evil.example/' } }, 'settings.get', {});
    expect(navigated).toMatchObject({ ok: false, error: { code: 'Unauthorized' } });
    expect(lines.join('')).toContain('unknown sender');
    await core.close();
  });

  it('rejects arguments that fail the schema and unknown methods', async () => {
    const { ipcMain, core } = await setup();
    expect(await ipcMain.invoke(trusted, 'settings.set', { projectId: 'abc' })).toMatchObject({ ok: false, error: { code: 'InvalidArguments' } });
    expect(await ipcMain.invoke(trusted, '__proto__', {})).toMatchObject({ ok: false, error: { code: 'UnknownMethod' } });
    await core.close();
  });

  it('forwards core events to windows and stops after unbinding', async () => {
    const { ipcMain, sent, unbind, core } = await setup();
    await ipcMain.invoke(trusted, 'settings.set', { deviceName: 'bench-07' });
    expect(sent).toContainEqual([EVENT_CHANNEL, 'settings.changed', expect.objectContaining({ deviceName: 'bench-07' })]);
    unbind();
    expect(ipcMain.handlers.size).toBe(0);
    const before = sent.length;
    await core.dispatch('settings.set', { deviceName: 'bench-08' });
    expect(sent.length).toBe(before);
    await core.close();
  });
});

describe('external link allowlist', () => {
  it('allows only https links to known documentation hosts', () => {
    expect(isAllowedExternalUrl('https://docs.edgeimpulse.com/docs')).toBe(true);
    expect(isAllowedExternalUrl('http://docs.edgeimpulse.com/')).toBe(false);
    expect(isAllowedExternalUrl('https://docs.edgeimpulse.com.evil.example/')).toBe(false);
    expect(isAllowedExternalUrl('https://user:pw@github.com/')).toBe(false);
    expect(isAllowedExternalUrl('file:///etc/passwd')).toBe(false);
    expect(isAllowedExternalUrl('not a url')).toBe(false);
  });
});
