/**
 * Messages on the WebSocket between the browser shell and the renderer. Encoded as CBOR so typed
 * arrays (stream batches) cross as raw bytes, not as JSON number lists. Types only: the renderer
 * imports this file.
 */
import type { CallResult, EventName, WireError } from './contract/contract.js';

export type ClientMessage = { t: 'call'; id: number; method: string; input: unknown };

export type ServerMessage =
  | { t: 'result'; id: number; result: CallResult }
  | { t: 'event'; name: EventName; payload: unknown }
  /** An answer to a message that could not be tied to a call (undecodable, too large). */
  | { t: 'error'; id: number | null; error: WireError };

/** Calls larger than this are answered with MessageTooLarge: room for a dropped 32 MB file, no more. */
export const MAX_CALL_BYTES = 40 * 1024 * 1024;
/** Hard cap: above it the socket is closed (1009) before the message is even buffered whole. */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;
