import { Encoder, decode } from 'cbor-x';
import type { RemoteConnector, RemoteSocket, RemoteSocketEvents } from '../../../src-main/core/remote/socket.js';

const cbor = new Encoder({ useRecords: false, variableMapSize: true });

/** One fake connection: what the link sent, and hands to play the server. */
export class FakeConnection implements RemoteSocket {
  readonly sent: Array<Record<string, unknown>> = [];
  pings = 0;
  terminated = false;
  constructor(readonly url: string, readonly on: RemoteSocketEvents) {}
  send(data: string | Buffer): void {
    this.sent.push((typeof data === 'string' ? JSON.parse(data) : decode(data)) as Record<string, unknown>);
  }
  ping(): void {
    this.pings++;
  }
  terminate(): void {
    if (this.terminated) return;
    this.terminated = true;
    this.on.close('terminated');
  }
  /** The server says something (JSON text frame, or CBOR when binary). */
  say(m: unknown, binary = false): void {
    this.on.message(binary ? Buffer.from(cbor.encode(m)) : Buffer.from(JSON.stringify(m)), binary);
  }
}

/** A connector that records every connection; each opens at once unless `autoOpen` is false. */
export function fakeConnector(autoOpen = true): { connector: RemoteConnector; connections: FakeConnection[] } {
  const connections: FakeConnection[] = [];
  const connector: RemoteConnector = (url, on) => {
    const c = new FakeConnection(url, on);
    connections.push(c);
    if (autoOpen) queueMicrotask(() => on.open());
    return c;
  };
  return { connector, connections };
}
