export interface MultipartPart {
  name: string;
  filename: string | null;
  contentType: string | null;
  data: Buffer;
}

export class MultipartError extends Error {}

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');

export function boundaryOf(contentType: string): string | null {
  const m = /;\s*boundary\s*=\s*(?:"([^"]*)"|([^;\s]+))/i.exec(contentType);
  const b = m ? (m[1] ?? m[2] ?? '') : '';
  // RFC 2046: 1..70 characters.
  return b.length >= 1 && b.length <= 70 ? b : null;
}

/**
 * Parses a fully buffered multipart/form-data body. Buffering the whole body first
 * sidesteps parts split across TCP chunks; the emulator favours correctness over memory.
 */
export function parseMultipart(body: Buffer, boundary: string): MultipartPart[] {
  const first = Buffer.from(`--${boundary}`);
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  const parts: MultipartPart[] = [];
  let pos = body.indexOf(first);
  // A preamble is allowed, but the first delimiter must start a line.
  if (pos < 0 || (pos > 0 && !(body[pos - 2] === 0x0d && body[pos - 1] === 0x0a))) {
    throw new MultipartError('malformed multipart body: boundary delimiter not found');
  }
  pos += first.length;
  for (;;) {
    if (body[pos] === 0x2d && body[pos + 1] === 0x2d) return parts;
    while (body[pos] === 0x20 || body[pos] === 0x09) pos++;
    if (!(body[pos] === 0x0d && body[pos + 1] === 0x0a)) {
      throw new MultipartError('malformed multipart body: bad delimiter line');
    }
    pos += 2;
    let headerText = '';
    let dataStart: number;
    if (body.subarray(pos, pos + 2).equals(CRLF)) {
      dataStart = pos + 2;
    } else {
      const end = body.indexOf(HEADER_END, pos);
      if (end < 0) throw new MultipartError('malformed multipart body: unterminated part headers');
      headerText = body.subarray(pos, end).toString('utf8');
      dataStart = end + 4;
    }
    const next = body.indexOf(delimiter, dataStart);
    if (next < 0) throw new MultipartError('malformed multipart body: closing boundary not found');
    parts.push(partFrom(headerText, body.subarray(dataStart, next)));
    pos = next + delimiter.length;
  }
}

function partFrom(headerText: string, data: Buffer): MultipartPart {
  const headers = new Map<string, string>();
  for (const line of headerText.split('\r\n')) {
    if (line === '') continue;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new MultipartError('malformed multipart body: bad part header line');
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const disposition = headers.get('content-disposition');
  if (!disposition || !/^form-data\s*(;|$)/i.test(disposition)) {
    throw new MultipartError('malformed multipart body: part without Content-Disposition: form-data');
  }
  const params = dispositionParams(disposition);
  const name = params.get('name');
  if (name === undefined) throw new MultipartError('malformed multipart body: part without a name');
  const extended = params.get('filename*');
  const filename = extended !== undefined ? decodeExtended(extended) : (params.get('filename') ?? null);
  return { name, filename, contentType: headers.get('content-type') ?? null, data };
}

function dispositionParams(value: string): Map<string, string> {
  const out = new Map<string, string>();
  const re = /;\s*([^\s=;]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g;
  for (const m of value.matchAll(re)) {
    const key = (m[1] ?? '').toLowerCase();
    const raw = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : (m[3] ?? '').trim();
    // WHATWG FormData serialisers (browsers, undici) percent-escape only these three.
    out.set(key, key.endsWith('*') ? raw : raw.replace(/%22/g, '"').replace(/%0D/gi, '\r').replace(/%0A/gi, '\n'));
  }
  return out;
}

function decodeExtended(value: string): string {
  const m = /^([^']*)'[^']*'(.*)$/.exec(value);
  try {
    return decodeURIComponent(m ? (m[2] ?? '') : value);
  } catch {
    throw new MultipartError('malformed multipart body: bad filename* encoding');
  }
}
