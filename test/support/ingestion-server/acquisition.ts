import { createHmac, timingSafeEqual } from 'node:crypto';
import { decode as decodeCbor } from 'cbor-x';

export type FileKind =
  | 'json' | 'cbor' | 'csv' | 'parquet' | 'wav' | 'jpg' | 'png' | 'mp4' | 'avi' | 'labels';

/** Exactly the extension table of the spec; anything else is rejected. */
const KINDS: Record<string, FileKind> = {
  '.json': 'json', '.cbor': 'cbor', '.csv': 'csv', '.parquet': 'parquet', '.wav': 'wav',
  '.jpg': 'jpg', '.png': 'png', '.mp4': 'mp4', '.avi': 'avi', '.labels': 'labels',
};

export const ACCEPTED_EXTENSIONS = Object.keys(KINDS);

export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot).toLowerCase();
}

export function kindOf(name: string): FileKind | null {
  return KINDS[extensionOf(name)] ?? null;
}

export class ContentError extends Error {}

export interface ContentInfo {
  totalLengthMs: number;
  frequencyHz: number | null;
}

export function inspectContent(kind: FileKind, bytes: Buffer, hmacKey: string | null): ContentInfo {
  switch (kind) {
    case 'json':
    case 'cbor':
      return inspectSensorFile(kind, bytes, hmacKey);
    case 'wav':
      return inspectWav(bytes);
    case 'csv':
      if (!/^\uFEFF?[^\r\n]*\S[^\r\n]*(\r?\n|$)/.test(bytes.subarray(0, 64 * 1024).toString('utf8'))) {
        throw new ContentError('invalid CSV file: missing header line');
      }
      return { totalLengthMs: 0, frequencyHz: null };
    case 'parquet':
      if (bytes.length < 8 || ascii(bytes, 0, 4) !== 'PAR1' || ascii(bytes, bytes.length - 4, 4) !== 'PAR1') {
        throw new ContentError('invalid Parquet file: missing PAR1 magic');
      }
      return { totalLengthMs: 0, frequencyHz: null };
    case 'jpg':
      if (!(bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff)) {
        throw new ContentError('invalid JPEG file: bad magic bytes');
      }
      return { totalLengthMs: 0, frequencyHz: null };
    case 'png':
      if (!bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
        throw new ContentError('invalid PNG file: bad magic bytes');
      }
      return { totalLengthMs: 0, frequencyHz: null };
    case 'mp4':
      if (ascii(bytes, 4, 4) !== 'ftyp') throw new ContentError('invalid MP4 file: missing ftyp box');
      return { totalLengthMs: 0, frequencyHz: null };
    case 'avi':
      if (ascii(bytes, 0, 4) !== 'RIFF' || ascii(bytes, 8, 4) !== 'AVI ') {
        throw new ContentError('invalid AVI file: missing RIFF/AVI header');
      }
      return { totalLengthMs: 0, frequencyHz: null };
    case 'labels':
      throw new ContentError('labels files are not samples');
  }
}

function ascii(bytes: Buffer, at: number, len: number): string {
  return bytes.length >= at + len ? bytes.toString('latin1', at, at + len) : '';
}

function inspectWav(bytes: Buffer): ContentInfo {
  if (ascii(bytes, 0, 4) !== 'RIFF' || ascii(bytes, 8, 4) !== 'WAVE') {
    throw new ContentError('invalid WAV file: missing RIFF/WAVE header');
  }
  let byteRate = 0;
  let sampleRate = 0;
  let dataBytes = 0;
  for (let pos = 12; pos + 8 <= bytes.length; ) {
    const id = ascii(bytes, pos, 4);
    const size = bytes.readUInt32LE(pos + 4);
    if (id === 'fmt ' && pos + 20 <= bytes.length) {
      sampleRate = bytes.readUInt32LE(pos + 12);
      byteRate = bytes.readUInt32LE(pos + 16);
    } else if (id === 'data') {
      // Streaming writers leave 0xFFFFFFFF here; what actually arrived is the truth.
      dataBytes = Math.min(size, bytes.length - pos - 8);
      break;
    }
    pos += 8 + size + (size % 2);
  }
  return {
    totalLengthMs: byteRate > 0 ? Math.round((dataBytes / byteRate) * 1000) : 0,
    frequencyHz: sampleRate > 0 ? sampleRate : null,
  };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function inspectSensorFile(kind: 'json' | 'cbor', bytes: Buffer, hmacKey: string | null): ContentInfo {
  let doc: unknown;
  try {
    doc = kind === 'json' ? JSON.parse(bytes.toString('utf8')) : decodeCbor(bytes);
  } catch {
    throw new ContentError(`invalid sensor data file: not valid ${kind === 'json' ? 'JSON' : 'CBOR'}`);
  }
  const { intervalMs, rows, alg, signature } = validateAcquisition(doc);
  if (alg === 'HS256' && hmacKey !== null) verifyHmac(bytes, signature, hmacKey);
  return { totalLengthMs: rows * intervalMs, frequencyHz: 1000 / intervalMs };
}

function validateAcquisition(doc: unknown): { intervalMs: number; rows: number; alg: string; signature: string } {
  const fail = (why: string): never => {
    throw new ContentError(`invalid sensor data file: ${why}`);
  };
  if (!isObject(doc)) return fail('expected an object with protected, signature and payload');
  const prot = doc['protected'];
  if (!isObject(prot)) return fail('protected must be an object');
  if (typeof prot['ver'] !== 'string') fail('protected.ver must be a string');
  const alg = prot['alg'];
  if (typeof alg !== 'string') return fail('protected.alg must be a string');
  if (prot['iat'] !== undefined && typeof prot['iat'] !== 'number') fail('protected.iat must be a number');
  const signature = doc['signature'];
  if (typeof signature !== 'string') return fail('signature must be a string');
  const payload = doc['payload'];
  if (!isObject(payload)) return fail('payload must be an object');
  if (payload['device_name'] !== undefined && typeof payload['device_name'] !== 'string') {
    fail('payload.device_name must be a string');
  }
  if (typeof payload['device_type'] !== 'string') fail('payload.device_type must be a string');
  const intervalMs = payload['interval_ms'];
  if (typeof intervalMs !== 'number' || !Number.isFinite(intervalMs) || intervalMs <= 0) {
    return fail('payload.interval_ms must be a positive number');
  }
  const sensors = payload['sensors'];
  if (!Array.isArray(sensors) || sensors.length === 0) return fail('payload.sensors must be a non-empty array');
  sensors.forEach((s: unknown, i) => {
    if (!isObject(s) || typeof s['name'] !== 'string') fail(`payload.sensors[${i}].name must be a string`);
    if (!isObject(s) || typeof s['units'] !== 'string') fail(`payload.sensors[${i}].units must be a string`);
  });
  const values = payload['values'];
  if (!Array.isArray(values) || values.length === 0) return fail('payload.values must be a non-empty array');
  values.forEach((row: unknown, i) => {
    const ok = Array.isArray(row) && row.length === sensors.length
      && row.every((v: unknown) => typeof v === 'number' && Number.isFinite(v));
    if (!ok) fail(`payload.values[${i}] must be an array of ${sensors.length} numbers (one per sensor)`);
  });
  return { intervalMs, rows: values.length, alg, signature };
}

/**
 * Works on the received bytes: the signer encoded the message with 64 '0' characters
 * in place of the signature, so swapping them back reproduces the signed bytes
 * without depending on how the client serialised JSON or CBOR.
 */
function verifyHmac(raw: Buffer, signature: string, key: string): void {
  if (!/^[0-9a-fA-F]{64}$/.test(signature)) {
    throw new ContentError('signature verification failed: signature is not 64 hex characters');
  }
  const at = raw.indexOf(Buffer.from(signature, 'latin1'));
  if (at < 0) throw new ContentError('signature verification failed: signature not found in message');
  const signed = Buffer.from(raw);
  signed.fill('0', at, at + 64);
  const expected = createHmac('sha256', key).update(signed).digest();
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) {
    throw new ContentError('signature verification failed: HMAC-SHA256 mismatch');
  }
}
