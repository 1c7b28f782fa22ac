import { randomBytes } from 'node:crypto';

export interface Part {
  name: string;
  bytes: Uint8Array;
  contentType: string;
}

/**
 * One multipart/form-data body with a part named "data" per file, as the ingestion files
 * endpoints expect. File bytes are copied once, straight into the body; small files are coalesced
 * into a few large Buffers (one write each) instead of three small writes per file, which for a
 * thousand sensor files is most of the cost of sending them.
 */
export function buildMultipart(parts: Part[]): { boundary: string; chunks: Buffer[]; length: number } {
  const boundary = `----CaptureDesk${randomBytes(12).toString('hex')}`;
  const heads = parts.map((p) =>
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="data"; filename="${escapeFilename(p.name)}"\r\nContent-Type: ${p.contentType}\r\n\r\n`, 'utf8'));
  const tail = Buffer.from(`--${boundary}--\r\n`);
  const chunks: Buffer[] = [];
  let slab: Buffer | null = null;
  let at = 0;
  const put = (b: Uint8Array) => {
    slab!.set(b, at);
    at += b.byteLength;
  };
  parts.forEach((p, i) => {
    const size = heads[i]!.length + p.bytes.byteLength + 2;
    if (size > SLAB_BYTES) {
      // A big file travels as its own buffer: copying megabytes buys nothing.
      flush();
      chunks.push(heads[i]!, Buffer.from(p.bytes.buffer, p.bytes.byteOffset, p.bytes.byteLength), CRLF);
      return;
    }
    if (slab === null || at + size > slab.length) {
      flush();
      slab = Buffer.allocUnsafe(SLAB_BYTES);
    }
    put(heads[i]!);
    put(p.bytes);
    put(CRLF);
  });
  flush();
  chunks.push(tail);
  return { boundary, chunks, length: chunks.reduce((n, c) => n + c.length, 0) };

  function flush(): void {
    if (slab !== null && at > 0) chunks.push(slab.subarray(0, at));
    slab = null;
    at = 0;
  }
}

/** Body pieces up to this size; bigger files are sent from their own buffer. */
const SLAB_BYTES = 1024 * 1024;
const CRLF = Buffer.from('\r\n');

/** The WHATWG form encoding escapes for a quoted filename: quotes and line breaks. */
function escapeFilename(name: string): string {
  return name.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
