import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Core } from '../core/app.js';
import type { Logger } from '../core/log.js';
import { MAX_FRAME_BYTES } from '../core/wire.js';
import { readStatic } from './static-files.js';
import { tokenMatches } from './token.js';
import { attachWsSession } from './ws-session.js';

export interface BrowserShellOptions {
  core: Core;
  rendererDir: string;
  token: string;
  host: string;
  port: number;
  log: Logger;
}

export interface BrowserShell {
  /** The full URL with the token: the only way in. */
  url: string;
  port: number;
  close(): Promise<void>;
}

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'content-security-policy': CSP,
  'x-content-type-options': 'nosniff',
  // The token is in the path: it must never leak to another site through Referer.
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};

const UNAUTHORIZED_TEXT =
  'Unauthorized: this Capture Desk session needs its token. Open the full URL that `capture-desk serve` printed (http://HOST:PORT/<token>/).\n';

/**
 * The browser shell: the built renderer and the contract over WebSocket, both only under
 * /<token>/. Every other path, including the bare root, answers 401 and shows no data.
 */
export async function startBrowserShell(opts: BrowserShellOptions): Promise<BrowserShell> {
  const { core, log, token } = opts;
  const prefix = `/${token}`;
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });

  const tokenOf = (req: IncomingMessage): string | undefined => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    return path.split('/')[1];
  };

  const server = createServer((req, res) => {
    void handleHttp(req, res).catch((err) => {
      log.error('http handler failed', { error: String(err) });
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('Internal error\n');
    });
  });

  async function handleHttp(req: IncomingMessage, res: ServerResponse) {
    if (!tokenMatches(tokenOf(req), token)) {
      log.warn('refused http request without a valid token', { method: req.method, remote: req.socket.remoteAddress });
      res.writeHead(401, { 'content-type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS });
      res.end(UNAUTHORIZED_TEXT);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('Method not allowed\n');
      return;
    }
    const rest = (req.url ?? '').split('?')[0]!.slice(prefix.length);
    if (rest === '') {
      // Relative asset URLs only resolve under the token if the page ends in a slash.
      res.writeHead(301, { location: `${prefix}/` }).end();
      return;
    }
    let file;
    try {
      file = await readStatic(opts.rendererDir, rest);
    } catch {
      file = null; // malformed percent-encoding is just a missing file
    }
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain', ...SECURITY_HEADERS }).end('Not found\n');
      return;
    }
    res.writeHead(200, { 'content-type': file.type, ...SECURITY_HEADERS });
    res.end(req.method === 'HEAD' ? undefined : file.body);
  }

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (req.url ?? '').split('?')[0];
    if (!tokenMatches(tokenOf(req), token) || path !== `${prefix}/ws`) {
      log.warn('refused websocket without a valid token', { remote: req.socket.remoteAddress });
      socket.end('HTTP/1.1 401 Unauthorized\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n' + UNAUTHORIZED_TEXT);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => attachWsSession(ws, core, log));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${shownHost}:${port}${prefix}/`,
    port,
    async close() {
      for (const c of wss.clients) c.terminate();
      wss.close();
      const closed = new Promise<void>((r) => server.close(() => r()));
      // A response still streaming (a long WAV to the audio element) would otherwise hold close() open.
      server.closeAllConnections();
      await closed;
    },
  };
}
