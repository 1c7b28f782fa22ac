import type { BoundingBox, Category } from '../contract/contract.js';
import { CoreError } from '../errors.js';
import { httpPost, type HttpAnswer } from './http-post.js';
import { answerText, htmlAnswer, IngestionError } from './ingestion-errors.js';
import { buildMultipart, type Part } from './multipart.js';

/** Limits of the ingestion service (spec, "Limits"). */
export const MAX_FILES_PER_REQUEST = 1000;
export const MAX_FILE_BYTES = 100 * 1024 * 1024;

export interface IngestionTarget {
  ingestionUrl: string;
  apiKey: string;
}

/** What the headers say about every file of one request. */
export interface UploadHeaders {
  category: Category;
  /**
   * A label, null for "no label" (x-no-label: 1), or undefined: no label header, so the platform
   * derives each file's label from its name (spec: the leading match of ^[a-zA-Z0-9\s-_]+).
   */
  label: string | null | undefined;
  metadata: Record<string, string>;
  boundingBoxes: BoundingBox[];
  /** On by default, as the platform's own uploader does: makes re-sending after a crash safe. */
  disallowDuplicates: boolean;
  addDateId: boolean;
}

export type FileOutcome =
  | { name: string; ok: true; sampleId: number | null }
  | { name: string; ok: false; error: string; /** the platform already holds these bytes */ duplicate: boolean };

export interface SendOptions {
  timeoutMs?: number;
  /** Sent along but not samples themselves, e.g. an info.labels file with structured labels. */
  sidecars?: Part[];
}

const DUPLICATE = /already exists/i;

export function buildHeaders(apiKey: string, h: UploadHeaders): Record<string, string> {
  const headers: Record<string, string> = { 'x-api-key': apiKey };
  if (h.label === null) headers['x-no-label'] = '1';
  else if (h.label !== undefined) headers['x-label'] = headerSafe('label', h.label);
  if (h.disallowDuplicates) headers['x-disallow-duplicates'] = '1';
  if (h.addDateId) headers['x-add-date-id'] = '1';
  if (Object.keys(h.metadata).length > 0) headers['x-metadata'] = asciiJson(h.metadata);
  if (h.boundingBoxes.length > 0) headers['x-bounding-boxes'] = asciiJson(h.boundingBoxes);
  return headers;
}

/** POST /api/{category}/files: many files, one answer per file in files[]. */
export async function sendFiles(target: IngestionTarget, h: UploadHeaders, files: Part[], opts: SendOptions = {}): Promise<FileOutcome[]> {
  if (files.length === 0) return [];
  if (files.length > MAX_FILES_PER_REQUEST) throw new CoreError('InvalidArguments', `At most ${MAX_FILES_PER_REQUEST} files fit in one request; got ${files.length}.`);
  for (const f of files) assertSize(f.name, f.bytes.byteLength);
  const { boundary, chunks, length } = buildMultipart([...files, ...(opts.sidecars ?? [])]);
  const headers = { ...buildHeaders(target.apiKey, h), 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': length };
  const answer = await httpPost(endpoint(target, `/api/${h.category}/files`), headers, chunks, timeoutFor(length, opts));
  throwForStatus(answer);
  return readFileResults(answer, files.map((f) => f.name));
}

/** Legacy POST /api/{training|testing|anomaly}/data: one raw CBOR/JSON body, named by x-file-name. */
export async function sendLegacy(
  target: IngestionTarget,
  set: 'training' | 'testing' | 'anomaly',
  h: Omit<UploadHeaders, 'category'>,
  file: Part,
  opts: SendOptions = {},
): Promise<{ storedName: string }> {
  assertSize(file.name, file.bytes.byteLength);
  if (file.contentType !== 'application/cbor' && file.contentType !== 'application/json') {
    throw new CoreError('InvalidArguments', `The legacy /data endpoints take only CBOR or JSON sensor files; "${file.name}" is ${file.contentType}. Use the files endpoint instead.`);
  }
  const body = Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength);
  const headers = {
    ...buildHeaders(target.apiKey, { ...h, category: 'training' }),
    'content-type': file.contentType,
    'content-length': body.length,
    'x-file-name': headerSafe('file name', file.name),
  };
  const answer = await httpPost(endpoint(target, `/api/${set}/data`), headers, [body], timeoutFor(body.length, opts));
  throwForStatus(answer);
  // A 200 page from a portal or a wrong URL is no stored name.
  const said = answerText(answer.text);
  if (said.html) throw new IngestionError('bad-response', `${htmlAnswer(200, said.said)} Nothing is confirmed.`, 200);
  return { storedName: answer.text.trim() };
}

function throwForStatus({ status, text }: HttpAnswer): void {
  if (status === 200) return;
  const answer = answerText(text);
  // Not the platform answering (its errors are text or JSON): the status keeps its kind (a 502 is
  // tried again, a 401 pauses), the words say what came back and where to look.
  if (answer.html) {
    const kind = status === 401 ? 'unauthorized' : status === 421 ? 'missing-header' : status === 400 ? 'bad-request' : status >= 500 ? 'server' : 'bad-response';
    throw new IngestionError(kind, htmlAnswer(status, answer.said), status);
  }
  const said = answer.said || '(no details)';
  if (status === 401) throw new IngestionError('unauthorized', `The platform refused the API key (401: ${said}).`, 401, 'Check the key for this project in Settings.');
  if (status === 421) throw new IngestionError('missing-header', `The platform says a header is missing (421: ${said}).`, 421);
  if (status === 400) throw new IngestionError('bad-request', `The platform rejected the upload (400: ${said})`, 400);
  if (status >= 500) throw new IngestionError('server', `The platform had an internal error (${status}: ${said}).`, status);
  throw new IngestionError('bad-response', `Unexpected answer from the platform (${status}: ${said}).`, status);
}

/** A 200 is not a yes: each file has its own verdict in files[].success. */
function readFileResults(answer: HttpAnswer, names: string[]): FileOutcome[] {
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    const body = answerText(answer.text);
    throw new IngestionError('bad-response', body.html ? `${htmlAnswer(200, body.said)} Nothing is confirmed.` : `The platform answered 200 without per-file results (${body.said}); nothing is confirmed.`, 200);
  }
  const files = (body as { files?: unknown }).files;
  if (!Array.isArray(files)) throw new IngestionError('bad-response', 'The platform answered 200 without a files[] list; nothing is confirmed.', 200);
  const byName = new Map<string, Record<string, unknown>>();
  files.forEach((f: Record<string, unknown>, i) => byName.set(typeof f?.fileName === 'string' ? f.fileName : (names[i] ?? `#${i}`), f));
  return names.map((name): FileOutcome => {
    const f = byName.get(name);
    if (!f) return { name, ok: false, error: 'The platform did not report on this file, so it is not confirmed.', duplicate: false };
    if (f.success === true) return { name, ok: true, sampleId: typeof f.sampleId === 'number' ? f.sampleId : null };
    const error = typeof f.error === 'string' ? f.error : 'rejected without a reason';
    return { name, ok: false, error, duplicate: DUPLICATE.test(error) };
  });
}

function assertSize(name: string, bytes: number): void {
  if (bytes > MAX_FILE_BYTES) {
    throw new CoreError('InvalidArguments', `"${name}" is ${(bytes / 1048576).toFixed(1)} MB; the platform takes at most 100 MB per file. Split or crop it first.`);
  }
}

function endpoint(target: IngestionTarget, path: string): URL {
  return new URL(target.ingestionUrl.replace(/\/+$/, '') + path);
}

/** Generous for slow uplinks: 30 s plus 1 s per 100 kB. */
export function requestTimeoutMs(bytes: number): number {
  return 30_000 + bytes / 100;
}

function timeoutFor(bytes: number, opts: SendOptions): number {
  return opts.timeoutMs ?? requestTimeoutMs(bytes);
}

/** HTTP header values must be Latin-1 without control characters; JSON is escaped to ASCII. */
function headerSafe(what: string, value: string): string {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) throw new CoreError('InvalidArguments', `The ${what} "${value.slice(0, 40)}" contains control characters; remove them.`);
  if (/[^\u0020-\u00ff]/.test(value)) throw new CoreError('InvalidArguments', `The ${what} "${value.slice(0, 40)}" has characters an HTTP header cannot carry; use letters, digits, spaces, '-' and '_'.`);
  return value;
}

function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
