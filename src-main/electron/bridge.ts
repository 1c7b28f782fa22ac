/**
 * What preload.ts exposes as `window.captureDesk`, and the IPC channels behind it. Types and
 * constants only: preload, main and the renderer all import this file, none of them twice-writes it.
 */
import type { CallResult, EventName } from '../core/contract/contract.js';

export const CALL_CHANNEL = 'capture-desk:call';
export const EVENT_CHANNEL = 'capture-desk:event';

export interface CaptureDeskBridge {
  call(method: string, input: unknown): Promise<CallResult>;
  /** Every core event; returns the function that removes this listener. */
  onEvent(listener: (name: EventName, payload: unknown) => void): () => void;
  /**
   * The path of a dropped or picked file (Electron's webUtils.getPathForFile), so the core reads it
   * from disk instead of the renderer sending its bytes; '' for a file with no path on disk.
   */
  pathForFile(file: File): string;
}
