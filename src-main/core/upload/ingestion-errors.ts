import { CoreError } from '../errors.js';

export type IngestionFailure =
  | 'unauthorized' // 401: bad or missing key — pause, never retry by ourselves
  | 'missing-header' // 421
  | 'bad-request' // 400: the message is wrong — the sample is rejected
  | 'server' // 5xx
  | 'network' // refused, reset, DNS, offline
  | 'timeout'
  | 'bad-response'; // an answer we cannot read, so nothing is confirmed

/** A request-level failure of the ingestion service, with the server's own text when it sent one. */
export class IngestionError extends CoreError {
  readonly kind: IngestionFailure;
  readonly status: number | null;
  /** What happened, without the app's advice: a command line says what to do in its own terms. */
  readonly what: string;

  constructor(kind: IngestionFailure, what: string, status: number | null = null, advice?: string) {
    super(kind === 'unauthorized' ? 'Unauthorized' : kind === 'network' || kind === 'timeout' ? 'Unavailable' : 'Internal', advice ? `${what} ${advice}` : what, { kind, status });
    this.kind = kind;
    this.status = status;
    this.what = what;
  }

  /** Safe to send again: nothing was stored, or duplicates are refused by the platform. */
  get retryable(): boolean {
    return this.kind === 'server' || this.kind === 'network' || this.kind === 'timeout' || this.kind === 'bad-response';
  }
}

/** At most this much of a server's own text goes into a sentence. */
const SAID_CHARS = 200;

/**
 * What a server's answer body says, fit for a sentence. An HTML page (a proxy's error page, a web
 * site at a wrong URL) was printed whole, hundreds of lines of markup in one error; it is named
 * by its <title> (else the start of its text) instead. Other text is cut at 200 characters.
 */
export function answerText(text: string): { html: boolean; said: string } {
  const t = text.trim();
  if (/^(<!--[\s\S]*?-->\s*)*<(!doctype\s+html|html|head|body)\b/i.test(t) || /<\/(html|body|head)>/i.test(t)) {
    const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(t)?.[1];
    const words = (title ?? t.replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]*>/g, ' '))
      .replace(/&nbsp;/g, ' ').replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'")
      .replace(/\s+/g, ' ')
      .trim();
    return { html: true, said: cut(words) };
  }
  return { html: false, said: cut(t.replace(/\s+/g, ' ')) };
}

/** "The server answered 502 with an HTML page ("502 Bad Gateway") instead of the platform's JSON: …" */
export function htmlAnswer(status: number, said: string, service: 'ingestion' | 'management' = 'ingestion'): string {
  const where = service === 'ingestion' ? 'the ingestion URL is wrong (--ingestion-url on the command line, or Settings)' : 'the management URL is wrong (--management-url on the command line, or Settings)';
  return `The server answered ${status} with an HTML page${said ? ` ("${said}")` : ''} instead of the platform's JSON: ${where}, or a proxy in between answered.`;
}

function cut(s: string): string {
  return s.length > SAID_CHARS ? `${s.slice(0, SAID_CHARS - 1)}…` : s;
}
