import type { Core } from '../core/app.js';
import type { Logger } from '../core/log.js';
import type { CallResult } from '../core/contract/contract.js';
import { CALL_CHANNEL, EVENT_CHANNEL } from './bridge.js';

/** The slice of Electron's ipcMain we use: typed structurally so a unit test can pass a fake. */
export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcEventLike, ...args: unknown[]) => Promise<unknown>): void;
  removeHandler(channel: string): void;
}
export interface IpcEventLike {
  sender: { id: number };
  senderFrame: { url: string } | null;
}
export interface EventSink {
  isDestroyed(): boolean;
  send(channel: string, ...args: unknown[]): void;
}

export interface IpcBindingOptions {
  core: Core;
  ipcMain: IpcMainLike;
  log: Logger;
  /** True only for frames of windows we created, showing our own renderer. */
  isTrustedSender(event: IpcEventLike): boolean;
  /** The windows that receive core events. */
  targets(): Iterable<EventSink>;
}

/**
 * Binds the whole contract to ipcMain in one handler: the method name is data, checked by the
 * core's dispatcher like any other argument. Returns the unbinding function.
 */
export function bindIpc(opts: IpcBindingOptions): () => void {
  const { core, ipcMain, log } = opts;
  ipcMain.handle(CALL_CHANNEL, async (event, method, input): Promise<CallResult> => {
    if (!opts.isTrustedSender(event)) {
      log.warn('dropped IPC call from an unknown sender', { url: event.senderFrame?.url ?? null });
      return { ok: false, error: { code: 'Unauthorized', message: 'This window is not allowed to talk to Capture Desk.' } };
    }
    return core.dispatch(method, input);
  });
  const unsubscribe = core.onEvent((name, payload) => {
    for (const target of opts.targets()) if (!target.isDestroyed()) target.send(EVENT_CHANNEL, name, payload);
  });
  return () => {
    unsubscribe();
    ipcMain.removeHandler(CALL_CHANNEL);
  };
}
