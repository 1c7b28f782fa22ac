import { describe, expect, it } from 'vitest';
import { buildMultipart, type Part } from '../../../src-main/core/upload/multipart.js';

/** What the body must be, written the plain way: header, bytes, CRLF per part, then the closing boundary. */
function expected(boundary: string, parts: Part[]): Buffer {
  const pieces: Buffer[] = [];
  for (const p of parts) {
    const name = p.name.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
    pieces.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="data"; filename="${name}"\r\nContent-Type: ${p.contentType}\r\n\r\n`), Buffer.from(p.bytes), Buffer.from('\r\n'));
  }
  pieces.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(pieces);
}

const part = (name: string, n: number, seed = 0): Part => ({
  name, contentType: 'application/cbor', bytes: Uint8Array.from({ length: n }, (_, i) => (i + seed) & 0xff),
});

describe('buildMultipart', () => {
  it('coalesces a thousand small files into a few buffers holding exactly the form body', () => {
    const parts = Array.from({ length: 1000 }, (_, i) => part(`idle.${i}.cbor`, 1650, i));
    const { boundary, chunks, length } = buildMultipart(parts);
    expect(chunks.length).toBeLessThanOrEqual(4);
    const body = Buffer.concat(chunks);
    expect(body.length).toBe(length);
    expect(body.equals(expected(boundary, parts))).toBe(true);
  });

  it('sends a big file from its own buffer, between coalesced small ones', () => {
    const parts = [part('a.cbor', 10), part('big.wav', 3 * 1024 * 1024, 7), part('b.cbor', 20), part('"odd"\nname.json', 0)];
    const { boundary, chunks, length } = buildMultipart(parts);
    expect(chunks.some((c) => c.length === 3 * 1024 * 1024)).toBe(true);
    const body = Buffer.concat(chunks);
    expect(body.length).toBe(length);
    expect(body.equals(expected(boundary, parts))).toBe(true);
  });

  it('makes a body with just the closing boundary for no parts, and a new boundary each time', () => {
    const a = buildMultipart([]);
    expect(Buffer.concat(a.chunks).toString()).toBe(`--${a.boundary}--\r\n`);
    expect(buildMultipart([]).boundary).not.toBe(a.boundary);
  });
});
