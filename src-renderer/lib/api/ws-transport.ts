import { Encoder } from 'cbor-x';
import type { CallResult, EventName } from '../../../src-main/core/contract/contract.js';
import type { ClientMessage, ServerMessage } from '../../../src-main/core/wire.js';
import type { ConnectionStatus, Transport } from './client.js';

const codec = new Encoder({ useRecords: false, variableMapSize: true });
const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 5000;

/**
 * The contract over a WebSocket to the browser shell. Calls made while (re)connecting wait for
 * the socket; calls in flight when it drops fail with a Disconnected error rather than hang.
 */
export function wsTransport(url: string): Transport {
  const pending = new Map<number, (r: CallResult) => void>();
  const eventListeners = new Set<(name: EventName, payload: unknown) => void>();
  const statusListeners = new Set<(s: ConnectionStatus) => void>();
  const waitingForOpen: Array<() => void> = [];
  let nextId = 1;
  let socket: WebSocket;
  let status: ConnectionStatus = 'connecting';
  let retryMs = RETRY_MIN_MS;

  const setStatus = (s: ConnectionStatus) => {
    status = s;
    for (const l of statusListeners) l(s);
  };

  const connect = () => {
    setStatus('connecting');
    socket = new WebSocket(url);
    socket.binaryType = 'arraybuffer';
    socket.onopen = () => {
      retryMs = RETRY_MIN_MS;
      setStatus('open');
      for (const go of waitingForOpen.splice(0)) go();
    };
    socket.onmessage = (ev) => {
      const msg = codec.decode(new Uint8Array(ev.data as ArrayBuffer)) as ServerMessage;
      if (msg.t === 'event') for (const l of eventListeners) l(msg.name, msg.payload);
      else if (msg.t === 'result') settle(msg.id, msg.result);
      else if (msg.id !== null) settle(msg.id, { ok: false, error: msg.error });
      else console.error('Capture Desk core refused a message:', msg.error.message);
    };
    socket.onclose = () => {
      for (const id of [...pending.keys()]) {
        settle(id, { ok: false, error: { code: 'Disconnected', message: 'Lost the connection to Capture Desk; the call may not have completed. Reconnecting…' } });
      }
      setStatus('closed');
      setTimeout(connect, retryMs);
      retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
    };
  };

  const settle = (id: number, r: CallResult) => {
    const resolve = pending.get(id);
    pending.delete(id);
    resolve?.(r);
  };

  connect();

  return {
    call(method, input) {
      return new Promise<CallResult>((resolve) => {
        const id = nextId++;
        const send = () => {
          pending.set(id, resolve);
          const msg: ClientMessage = { t: 'call', id, method, input };
          socket.send(codec.encode(msg));
        };
        if (status === 'open' && socket.readyState === WebSocket.OPEN) send();
        else waitingForOpen.push(send);
      });
    },
    onEvent(listener) {
      eventListeners.add(listener);
      return () => eventListeners.delete(listener);
    },
    onStatus(listener) {
      statusListeners.add(listener);
      listener(status);
      return () => statusListeners.delete(listener);
    },
  };
}
