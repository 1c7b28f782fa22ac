import { createHmac } from 'node:crypto';
import { Encoder } from 'cbor-x';
import { monoWav } from '../audio/wav-bytes.mjs';

/** Builders for valid (and deliberately broken) upload payloads, shared by tests and benchmarks. */

export interface SensorDoc {
  protected: { ver: string; alg: string; iat?: number };
  signature: string;
  payload: {
    device_name?: string;
    device_type: string;
    interval_ms: number;
    sensors: { name: string; units: string }[];
    values: number[][];
  };
}

export const ZERO_SIGNATURE = '0'.repeat(64);

export function sensorDoc(values: number[][] = [[1, 2], [3, 4], [5, 6]], intervalMs = 10): SensorDoc {
  const width = values[0]?.length ?? 1;
  return {
    protected: { ver: 'v1', alg: 'none', iat: 1_700_000_000 },
    signature: ZERO_SIGNATURE,
    payload: {
      device_name: 'ac:87:a3:0a:2d:1b',
      device_type: 'TEST_BOARD',
      interval_ms: intervalMs,
      sensors: Array.from({ length: width }, (_, i) => ({ name: `s${i}`, units: 'm/s2' })),
      values,
    },
  };
}

const cbor = new Encoder({ useRecords: false, variableMapSize: true });

export function encodeCbor(doc: unknown): Buffer {
  return Buffer.from(cbor.encode(doc));
}

/** Signs the way devices do: encode with a zero signature, HMAC those bytes, re-encode. */
export function signed(doc: SensorDoc, key: string, format: 'json' | 'cbor'): Buffer {
  const encode = (d: SensorDoc): Buffer => (format === 'json' ? Buffer.from(JSON.stringify(d)) : encodeCbor(d));
  const copy: SensorDoc = { ...doc, protected: { ...doc.protected, alg: 'HS256' }, signature: ZERO_SIGNATURE };
  copy.signature = createHmac('sha256', key).update(encode(copy)).digest('hex');
  return encode(copy);
}

/** 16-bit mono PCM; `ms` of silence at `rate` Hz. */
export function wav(ms: number, rate = 16_000): Buffer {
  return monoWav(Math.round((rate * ms) / 1000), rate);
}

export const png = (): Buffer => Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  // Bytes that look like a multipart delimiter must survive the parser.
  Buffer.from('\r\n--not-a-boundary\r\n\r\n\x00\xff', 'latin1'),
]);

export const jpg = (): Buffer => Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46]);
