import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Where the page lives once signed in: the printed URL's token is swapped for a cookie scoped here. */
export const APP_PATH = '/app/';

/** Sign-ins remembered at once; the oldest is forgotten first (its browser opens the printed URL again). */
const MAX_SESSIONS = 1000;

export interface SessionCookieOptions {
  /** Under TLS the cookie is Secure (and carries the `__Secure-` prefix, which a plain-HTTP page cannot set). */
  secure: boolean;
  /** Cookies are not kept apart by port: the name carries it, so two `serve`s on one host do not sign each other out. */
  port: number;
}

/**
 * The browser sessions of one `serve` run: opening the printed URL (with the token) makes one and
 * sets its id as a cookie (HttpOnly, SameSite=Strict, Secure under TLS, Path={@link APP_PATH});
 * every later request and the WebSocket show the cookie instead of the token. Only a hash of each
 * id is kept, so the lookup's timing says nothing about the ids. Sessions end with the process.
 */
export class BrowserSessions {
  readonly #hashes = new Set<string>();
  readonly name: string;
  readonly #secure: boolean;

  constructor(o: SessionCookieOptions) {
    this.#secure = o.secure;
    this.name = `${o.secure ? '__Secure-' : ''}capture-desk-${o.port}`;
  }

  /** A new session: the Set-Cookie header value that carries it. */
  create(): string {
    const id = randomBytes(32).toString('base64url');
    if (this.#hashes.size >= MAX_SESSIONS) {
      const oldest = this.#hashes.values().next().value;
      if (oldest !== undefined) this.#hashes.delete(oldest);
    }
    this.#hashes.add(hash(id));
    return [`${this.name}=${id}`, `Path=${APP_PATH}`, 'HttpOnly', 'SameSite=Strict', ...(this.#secure ? ['Secure'] : [])].join('; ');
  }

  /** Whether the request carries a cookie of a session this run made. */
  has(req: IncomingMessage): boolean {
    for (const value of cookieValues(req.headers.cookie, this.name)) if (this.#hashes.has(hash(value))) return true;
    return false;
  }

  /** Whether the request carries this run's cookie at all (a stale one after a restart, a forged one). */
  offered(req: IncomingMessage): boolean {
    return cookieValues(req.headers.cookie, this.name).length > 0;
  }
}

function hash(id: string): string {
  return createHash('sha256').update(id).digest('base64url');
}

/** Every value the Cookie header gives `name` (a browser may send several cookies of one name). */
export function cookieValues(header: string | undefined, name: string): string[] {
  if (!header) return [];
  const out: string[] = [];
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) out.push(part.slice(eq + 1).trim());
  }
  return out;
}
