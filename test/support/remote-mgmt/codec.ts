import { Encoder } from 'cbor-x';
import type { RawData } from 'ws';
import type { Encoding } from './types.js';

// Standard CBOR: plain encode() writes cbor-x records, which other decoders cannot read.
const cbor = new Encoder({ useRecords: false, variableMapSize: true });

export type Decoded =
  | { ok: true; encoding: Encoding; message: Record<string, unknown> }
  | { ok: false; encoding: Encoding; error: string };

function bytesOf(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** The frame's kind, not the session's, picks the decoder: a text frame is JSON, a binary one CBOR. */
export function decodeFrame(data: RawData, isBinary: boolean): Decoded {
  const encoding: Encoding = isBinary ? 'cbor' : 'json';
  const bytes = bytesOf(data);
  let value: unknown;
  try {
    value = isBinary ? cbor.decode(bytes) : JSON.parse(bytes.toString('utf8'));
  } catch (e) {
    return { ok: false, encoding, error: e instanceof Error ? e.message : String(e) };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, encoding, error: 'expected an object' };
  }
  return { ok: true, encoding, message: value as Record<string, unknown> };
}

/** A string goes out as a text frame and a Buffer as a binary one, which is what fixes the kind. */
export function encodeFrame(encoding: Encoding, message: Record<string, unknown>): string | Buffer {
  return encoding === 'json' ? JSON.stringify(message) : cbor.encode(message);
}
