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
