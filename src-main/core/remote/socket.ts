/**
 * The seam between a remote link and the network: the link's protocol logic is unit-tested with a
 * fake socket; the shells use {@link wsConnector} (the `ws` package). wss:// verifies the server's
 * certificate (ws's default, never switched off here).
 */
import WebSocket from 'ws';

export interface RemoteSocketEvents {
  open(): void;
  message(data: Buffer, isBinary: boolean): void;
  pong(): void;
  /** Once per socket, after open or instead of it; `reason` says why in words. */
  close(reason: string): void;
}

export interface RemoteSocket {
  send(data: string | Buffer): void;
  ping(): void;
  /** Ends the socket now (no closing handshake): used when the server stopped answering. */
  terminate(): void;
}

export type RemoteConnector = (url: string, on: RemoteSocketEvents) => RemoteSocket;

export const wsConnector: RemoteConnector = (url, on) => {
  let closed = false;
  const close = (reason: string) => {
    if (closed) return;
    closed = true;
    on.close(reason);
  };
  // handshakeTimeout: a server that accepts TCP but never upgrades must not hold the link forever.
  const ws = new WebSocket(url, { handshakeTimeout: 10_000 });
  ws.on('open', () => on.open());
  ws.on('message', (data, isBinary) => on.message(Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer), isBinary));
  ws.on('pong', () => on.pong());
  ws.on('error', (err) => close(connectionProblem(url, err)));
  ws.on('close', (code, reason) => close(reason.length ? `the platform closed the connection (${code}: ${reason.toString()})` : `the connection closed (${code})`));
  return {
    send: (data) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(data);
    },
    ping: () => {
      if (ws.readyState === WebSocket.OPEN) ws.ping();
    },
    terminate: () => ws.terminate(),
  };
};

function connectionProblem(url: string, err: Error): string {
  const code = (err as NodeJS.ErrnoException).code ?? '';
  const host = url.replace(/^wss?:\/\//, '').split('/')[0];
  if (code === 'ECONNREFUSED') return `nothing answers at ${host} (connection refused)`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `cannot find ${host} (no network, or a wrong remote-management URL)`;
  if (/certificate|self[- ]signed|CERT_/i.test(`${code} ${err.message}`)) return `the certificate of ${host} could not be verified (${err.message}); check the remote-management URL`;
  return `cannot reach ${host}: ${err.message}`;
}
