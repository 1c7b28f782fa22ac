import type { WebSocket, RawData } from 'ws';
import type { Core } from '../core/app.js';
import type { Logger } from '../core/log.js';
import { MAX_CALL_BYTES, type ClientMessage, type ServerMessage } from '../core/wire.js';
import { wireCodec } from './cbor.js';

/** Above this much unsent data a client is too slow for live batches; it misses some instead of us buffering forever. */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

/**
 * Carries the whole contract over one WebSocket, generically: calls go to core.dispatch, every
 * core event is forwarded. Nothing here knows any method name.
 */
export function attachWsSession(ws: WebSocket, core: Core, log: Logger): void {
  const send = (msg: ServerMessage) => {
    if (ws.readyState === ws.OPEN) ws.send(wireCodec.encode(msg));
  };

  const unsubscribe = core.onEvent((name, payload) => {
    // Live batches are droppable (the seq gap tells the client); state changes never are.
    if (name === 'stream.batch' && ws.bufferedAmount > MAX_BUFFERED_BYTES) return;
    send({ t: 'event', name, payload });
  });
  ws.on('close', unsubscribe);
  ws.on('error', (err) => log.warn('websocket error', { error: String(err) }));

  ws.on('message', (data: RawData, isBinary: boolean) => {
    const bytes = toBuffer(data);
    if (bytes.length > MAX_CALL_BYTES) {
      log.warn('rejected oversized message', { bytes: bytes.length });
      send({ t: 'error', id: null, error: { code: 'MessageTooLarge', message: `Message of ${bytes.length} bytes exceeds the ${MAX_CALL_BYTES}-byte limit.` } });
      return;
    }
    const msg = isBinary ? decode(bytes) : undefined;
    if (!isCall(msg)) {
      log.warn('rejected malformed message', { bytes: bytes.length, binary: isBinary });
      const id = typeof (msg as { id?: unknown })?.id === 'number' ? (msg as { id: number }).id : null;
      send({ t: 'error', id, error: { code: 'MalformedMessage', message: 'Malformed message: expected a CBOR map {t:"call", id, method, input}.' } });
      return;
    }
    void core.dispatch(msg.method, msg.input).then((result) => send({ t: 'result', id: msg.id, result }));
  });
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

function decode(bytes: Buffer): unknown {
  try {
    return wireCodec.decode(bytes);
  } catch {
    return undefined;
  }
}

function isCall(msg: unknown): msg is ClientMessage {
  if (typeof msg !== 'object' || msg === null) return false;
  const m = msg as Record<string, unknown>;
  return m.t === 'call' && Number.isSafeInteger(m.id) && typeof m.method === 'string';
}
