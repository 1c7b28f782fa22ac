import { randomBytes } from 'node:crypto';

export interface Part {
  name: string;
  bytes: Uint8Array;
  contentType: string;
}

/**
 * One multipart/form-data body with a part named "data" per file, as the ingestion files
 * endpoints expect. Built as a list of buffers so file bytes are never copied into a string.
 */
export function buildMultipart(parts: Part[]): { boundary: string; chunks: Buffer[]; length: number } {
  const boundary = `----CaptureDesk${randomBytes(12).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="data"; filename="${escapeFilename(p.name)}"\r\nContent-Type: ${p.contentType}\r\n\r\n`,
        'utf8',
      ),
      Buffer.from(p.bytes.buffer, p.bytes.byteOffset, p.bytes.byteLength),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { boundary, chunks, length: chunks.reduce((n, c) => n + c.length, 0) };
}

/** The WHATWG form encoding escapes for a quoted filename: quotes and line breaks. */
function escapeFilename(name: string): string {
  return name.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
