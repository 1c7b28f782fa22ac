// A board with the platform's firmware (AT) prints nothing until asked, so opening its port as a
// streaming board ends in "nothing readable arrived" (the core marks that error `silent`). Before
// saying so, the app asks the board as `record serial --mode auto` does: one that answers is
// switched to AT mode for good (remembered per board, as the port settings' Mode would).
import { ApiError, type Api } from '../api/client.js';

/** Not a byte came from the port while it was opened as a streaming board. */
export function silentPort(err: unknown): boolean {
  return err instanceof ApiError && (err.details as { silent?: unknown } | null | undefined)?.silent === true;
}

export type AtDetection = { switched: true; deviceType: string } | { switched: false; error: Error };

/**
 * Asks the board on `path` whether it runs the platform's firmware; if it does, its port is set
 * to AT mode. `silent` is the opening's error, said with what AT said when the board is neither.
 */
export async function detectAtBoard(api: Api, path: string, silent: Error): Promise<AtDetection> {
  let deviceType: string;
  try {
    deviceType = (await api.call('at.readBoard', { path })).deviceType;
  } catch (err) {
    return { switched: false, error: new Error(`${silent.message.replace(/\.?$/, '.')} Nor did it answer as the platform's firmware (AT): ${(err as Error).message}`) };
  }
  await api.call('serial.setSettings', { path, settings: { mode: 'at' } });
  return { switched: true, deviceType };
}
