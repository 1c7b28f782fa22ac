import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Core } from '../core/app.js';
import type { Logger } from '../core/log.js';
import { MAX_FRAME_BYTES } from '../core/wire.js';
import { AuthThrottle, type AuthThrottleOptions } from './auth-throttle.js';
import { APP_PATH, BrowserSessions } from './sessions.js';
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
  /** PEM certificate (chain) and private key: the shell then speaks HTTPS and WSS only. */
  tls?: { cert: string | Buffer; key: string | Buffer } | undefined;
  /** How repeated bad tokens are slowed down; tests shorten it. */
  throttle?: Partial<AuthThrottleOptions>;
}

export interface BrowserShell {
  /** The full URL with the token: the way in. Opening it swaps the token for a session cookie. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** The shell serves files and takes no uploads over HTTP (those go over the WebSocket): a body above this is refused unread. */
export const MAX_HTTP_BODY_BYTES = 16 * 1024;

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
  // The printed URL carries the token: it must never leak to another site through Referer.
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};

const UNAUTHORIZED_TEXT =
  'Unauthorized: this Capture Desk session needs its token. Open the full URL that `capture-desk serve` printed ' +
  '(http(s)://HOST:PORT/<token>/); a sign-in lasts until serve stops.\n';

/**
 * The browser shell: the built renderer and the contract over WebSocket. The printed URL
 * (/<token>/) signs a browser in: it sets a session cookie scoped to {@link APP_PATH} and
 * redirects there, so the token leaves the address bar and the history. Everything under
 * {@link APP_PATH} needs that cookie; the WebSocket takes the cookie (/app/ws) or, for clients
 * that are not browsers, the token (/<token>/ws). Every other path answers 401 and shows no data.
 */
export async function startBrowserShell(opts: BrowserShellOptions): Promise<BrowserShell> {
  const { core, log, token } = opts;
  const secure = opts.tls !== undefined;
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  const throttle = new AuthThrottle(opts.throttle);
  let sessions!: BrowserSessions; // made once the port is known: the cookie's name carries it

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    void handleHttp(req, res).catch((err) => {
      log.error('http handler failed', { error: String(err) });
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('Internal error\n');
    });
  };
  const server: Server = secure ? createHttpsServer({ cert: opts.tls!.cert, key: opts.tls!.key, minVersion: 'TLSv1.2' }, handler) : createHttpServer(handler);

  const remoteOf = (req: IncomingMessage) => req.socket.remoteAddress ?? 'unknown';

  async function handleHttp(req: IncomingMessage, res: ServerResponse) {
    if (bodyTooLarge(req)) {
      log.warn('refused an http request body above the limit', { method: req.method, remote: remoteOf(req), limit: MAX_HTTP_BODY_BYTES });
      res.writeHead(413, { 'content-type': 'text/plain', connection: 'close', ...SECURITY_HEADERS });
      // Closing the connection is what keeps the body unread.
      res.end('Request body too large: this server takes no uploads over HTTP.\n', () => req.socket.destroy());
      return;
    }
    const { path, search } = splitUrl(req.url);
    const rest = tokenRest(path, token);
    if (rest !== null) return signIn(req, res, rest, search);
    if ((path === APP_PATH.slice(0, -1) || path.startsWith(APP_PATH)) && sessions.has(req)) {
      throttle.succeeded(remoteOf(req));
      return serveFile(req, res, path);
    }
    const answer = await throttle.failed(remoteOf(req));
    if (!answer) {
      req.socket.destroy();
      return;
    }
    log.warn('refused http request without a valid token or session cookie', {
      method: req.method,
      remote: remoteOf(req),
      cookie: sessions.offered(req) ? 'unknown (from an earlier run?)' : 'none',
    });
    res.writeHead(401, { 'content-type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS });
    res.end(UNAUTHORIZED_TEXT);
  }

  /** The printed URL: a new session cookie, then the same page without the token. */
  function signIn(req: IncomingMessage, res: ServerResponse, rest: string, search: string) {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain', ...SECURITY_HEADERS }).end('Method not allowed\n');
      return;
    }
    throttle.succeeded(remoteOf(req));
    log.info('signed in a browser with the session token', { remote: remoteOf(req) });
    res.writeHead(303, { location: APP_PATH + rest.replace(/^\/+/, '') + search, 'set-cookie': sessions.create(), ...SECURITY_HEADERS });
    res.end();
  }

  async function serveFile(req: IncomingMessage, res: ServerResponse, path: string) {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('Method not allowed\n');
      return;
    }
    if (path === APP_PATH.slice(0, -1)) {
      // Relative asset URLs only resolve under the app's path if the page ends in a slash.
      res.writeHead(301, { location: APP_PATH }).end();
      return;
    }
    let file;
    try {
      file = await readStatic(opts.rendererDir, path.slice(APP_PATH.length));
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

  async function handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer) {
    socket.on('error', () => {}); // a client gone mid-handshake is not a crash
    const remote = remoteOf(req);
    // Browsers always send Origin on a WebSocket: another site's page (cross-site WebSocket
    // hijacking) is refused here. Clients that are not browsers send none and still need the token.
    const origin = req.headers.origin;
    if (origin !== undefined && !sameOrigin(origin, req.headers.host, secure)) {
      log.warn('refused websocket from another origin', { origin: origin.slice(0, 200), host: (req.headers.host ?? '').slice(0, 200), remote });
      socket.end('HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\nForbidden: this WebSocket only accepts the Capture Desk page it belongs to.\n');
      return;
    }
    const { path } = splitUrl(req.url);
    const ok = (path === `${APP_PATH}ws` && sessions.has(req)) || tokenRest(path, token) === '/ws';
    if (!ok) {
      if (!(await throttle.failed(remote))) {
        socket.destroy();
        return;
      }
      log.warn('refused websocket without a valid token or session cookie', { remote, cookie: sessions.offered(req) ? 'unknown (from an earlier run?)' : 'none' });
      socket.end('HTTP/1.1 401 Unauthorized\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n' + UNAUTHORIZED_TEXT);
      return;
    }
    throttle.succeeded(remote);
    wss.handleUpgrade(req, socket, head, (ws) => attachWsSession(ws, core, log));
  }

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    void handleUpgrade(req, socket, head).catch((err) => {
      log.error('websocket upgrade failed', { error: String(err) });
      socket.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  sessions = new BrowserSessions({ secure, port });
  const shownHost = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `${secure ? 'https' : 'http'}://${shownHost}:${port}/${token}/`,
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

function splitUrl(url: string | undefined): { path: string; search: string } {
  const raw = url ?? '/';
  const q = raw.indexOf('?');
  return q < 0 ? { path: raw, search: '' } : { path: raw.slice(0, q), search: raw.slice(q) };
}

/** What follows the token in `/<token>…`, or null when the first segment is not the token. */
function tokenRest(path: string, token: string): string | null {
  const segment = path.split('/')[1];
  if (!tokenMatches(segment, token)) return null;
  return path.slice(1 + token.length);
}

function bodyTooLarge(req: IncomingMessage): boolean {
  // A chunked body has no length to check first: refused too (this server never needs one).
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = Number(req.headers['content-length'] ?? 0);
  return !Number.isFinite(length) || length > MAX_HTTP_BODY_BYTES;
}

/** The Origin header names the host the request came to, over the scheme this server speaks. */
export function sameOrigin(origin: string, host: string | undefined, secure: boolean): boolean {
  if (!host) return false;
  try {
    return new URL(origin).origin === new URL(`${secure ? 'https' : 'http'}://${host}`).origin;
  } catch {
    return false;
  }
}
