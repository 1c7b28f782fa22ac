import { createHmac, timingSafeEqual } from 'node:crypto';
import { Encoder } from 'cbor-x';
import { z } from 'zod';
import { CoreError } from '../../errors.js';

/**
 * The platform's data acquisition format ("Sensor data file" in the spec), as JSON or CBOR,
 * optionally signed with HMAC-SHA256 the way the platform's own tools sign it: the signature
 * covers the encoded bytes with 64 '0' characters where the signature goes.
 */

export type AcquisitionFormat = 'cbor' | 'json';

/** Unsigned messages carry this too, so signed and unsigned files have the same byte layout. */
export const ZERO_SIGNATURE = '0'.repeat(64);

// Standard CBOR: plain encode() writes non-minimal map headers and records add tag d9dfff,
// both of which other decoders (and the platform's hash checks) must not have to cope with.
const cbor = new Encoder({ useRecords: false, variableMapSize: true });

export interface AcquisitionSensor {
  name: string;
  units: string;
}

export interface AcquisitionPayload {
  /** Optional on the platform: only set when the device has a globally unique id. */
  device_name?: string;
  device_type: string;
  interval_ms: number;
  sensors: AcquisitionSensor[];
  /** One row per sample time, one finite number per sensor. */
  values: number[][];
}

export interface AcquisitionMessage {
  protected: { ver: 'v1'; alg: 'HS256' | 'none'; iat?: number };
  signature: string;
  payload: AcquisitionPayload;
}

/** What a caller provides; alg and signature follow from whether an HMAC key is given. */
export interface AcquisitionDraft {
  protected?: { iat?: number };
  payload: AcquisitionPayload;
}

export interface EncodeOptions {
  format: AcquisitionFormat;
  hmacKey?: string;
}

/**
 * Checked by hand rather than as z.array(z.array(z.number())): 100k rows would otherwise
 * produce up to 100k issues and a slow parse; one message about the first bad row is what helps.
 */
function firstBadRow(values: unknown[], width: number): { index: number; why: string } | null {
  for (let i = 0; i < values.length; i++) {
    const row = values[i];
    if (!Array.isArray(row)) return { index: i, why: 'is not an array' };
    if (row.length !== width) {
      return { index: i, why: `has ${row.length} values but there are ${width} sensors` };
    }
    for (let j = 0; j < width; j++) {
      const v: unknown = row[j];
      if (typeof v !== 'number' || !Number.isFinite(v)) {
        return { index: i, why: `column ${j} is ${JSON.stringify(v) ?? String(v)}, not a finite number` };
      }
    }
  }
  return null;
}

const Sensor = z.object({ name: z.string().min(1), units: z.string() });

/** 100 kHz: the fastest rate a sample may be given (capture/set-rate.ts MAX_FREQUENCY_HZ). */
export const MIN_INTERVAL_MS = 0.01;
/** One reading a day: slower than any logger the platform takes data from. */
export const MAX_INTERVAL_MS = 86_400_000;

/**
 * What is wrong with an interval_ms, or null. Anything outside what real sensors do (1e-300 ms,
 * 1e300 ms, Infinity) was stored and then gave lengths of 0 or Infinity everywhere it was used.
 */
export function intervalProblem(v: unknown): string | null {
  if (typeof v !== 'number' || Number.isNaN(v)) return `is ${JSON.stringify(v) ?? String(v)}, not a number of milliseconds`;
  if (v >= MIN_INTERVAL_MS && v <= MAX_INTERVAL_MS) return null;
  return `is ${v} ms: the time between readings must be from ${MIN_INTERVAL_MS} ms (100 kHz) to ${MAX_INTERVAL_MS} ms (one reading a day). Check the rate the device wrote`;
}

const Payload = z
  .object({
    device_name: z.string().optional(),
    device_type: z.string(),
    interval_ms: z.custom<number>((v) => intervalProblem(v) === null, { error: (issue) => intervalProblem(issue.input) ?? 'is invalid' }),
    sensors: z.array(Sensor).min(1),
    values: z.custom<number[][]>((v) => Array.isArray(v), { message: 'must be an array of rows' }),
  })
  .superRefine((p, ctx) => {
    if (p.values.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['values'], message: 'is empty: a sample needs at least one row' });
      return;
    }
    const bad = firstBadRow(p.values, p.sensors.length);
    if (bad) {
      ctx.addIssue({
        code: 'custom',
        path: ['values', bad.index],
        message: `${bad.why}: every row needs exactly one finite number per sensor`,
      });
    }
  });

export const AcquisitionMessageSchema = z.object({
  protected: z.object({
    ver: z.literal('v1'),
    alg: z.enum(['HS256', 'none']),
    iat: z.number().nonnegative().optional(),
  }),
  signature: z.string(),
  payload: Payload,
});

function pathText(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * True only for a message the schema accepts (never the other way round): most files are, and
 * this reads them without the schema's object parsers, which cost more than the rest of checking
 * an import of 10,000 small files. Anything else goes through the schema, which says what is wrong.
 */
function plainlyValid(doc: unknown): boolean {
  if (!isRecord(doc) || !isRecord(doc['protected']) || !isRecord(doc['payload']) || typeof doc['signature'] !== 'string') return false;
  const pr = doc['protected'];
  if (pr['ver'] !== 'v1' || (pr['alg'] !== 'HS256' && pr['alg'] !== 'none')) return false;
  if (pr['iat'] !== undefined && !(finite(pr['iat']) && pr['iat'] >= 0)) return false;
  const p = doc['payload'];
  if ((p['device_name'] !== undefined && typeof p['device_name'] !== 'string') || typeof p['device_type'] !== 'string') return false;
  if (intervalProblem(p['interval_ms']) !== null) return false;
  const sensors = p['sensors'];
  if (!Array.isArray(sensors) || sensors.length === 0) return false;
  for (const s of sensors) if (!isRecord(s) || typeof s['name'] !== 'string' || s['name'].length === 0 || typeof s['units'] !== 'string') return false;
  const values = p['values'];
  return Array.isArray(values) && values.length > 0 && firstBadRow(values, sensors.length) === null;
}

function validate(doc: unknown, what: string): AcquisitionMessage {
  if (plainlyValid(doc)) return doc as AcquisitionMessage;
  const result = AcquisitionMessageSchema.safeParse(doc);
  if (result.success) return doc as AcquisitionMessage;
  const issue = result.error.issues[0];
  const where = issue ? pathText(issue.path) || 'message' : 'message';
  throw new CoreError('InvalidArguments', `${what}: ${where}: ${issue?.message ?? 'is invalid'}`, { path: where });
}

// What precedes the signature value: in CBOR text(9) "signature", then the text(64) header 0x78 0x40.
const CBOR_SIGNATURE_KEY = Buffer.from([0x69, ...Buffer.from('signature'), 0x78, 0x40]);
const JSON_SIGNATURE_KEY = Buffer.from('"signature"', 'latin1');

/** The key and the zeros as our encoder writes them (no whitespace, minimal CBOR header). */
function placeholderMarker(format: AcquisitionFormat): Buffer {
  const prefix = format === 'json' ? Buffer.from('"signature":"', 'latin1') : CBOR_SIGNATURE_KEY;
  return Buffer.concat([prefix, Buffer.from(ZERO_SIGNATURE, 'latin1')]);
}

function encodeRaw(msg: AcquisitionMessage, format: AcquisitionFormat): Buffer {
  if (format === 'json') return Buffer.from(JSON.stringify(msg), 'utf8');
  return cbor.encode(msg); // a Buffer of its own: later encodes do not reuse its bytes
}

export function encodeAcquisition(draft: AcquisitionDraft, opts: EncodeOptions): Buffer {
  if (opts.format !== 'json' && opts.format !== 'cbor') {
    throw new CoreError('InvalidArguments', `Unknown acquisition format "${String(opts.format)}": use "json" or "cbor"`);
  }
  if (opts.hmacKey === '') {
    throw new CoreError('InvalidArguments', 'The HMAC key is empty: leave it unset to upload unsigned data, or enter the project\'s HMAC key');
  }
  const p = draft.payload;
  // Rebuilt in a fixed key order: protected and signature come before the payload, so the first
  // marker in the bytes is the signature even if a device or sensor name contains the marker text.
  const payload: AcquisitionPayload = p.device_name === undefined
    ? { device_type: p.device_type, interval_ms: p.interval_ms, sensors: p.sensors.map(sensorCopy), values: p.values }
    : { device_name: p.device_name, device_type: p.device_type, interval_ms: p.interval_ms, sensors: p.sensors.map(sensorCopy), values: p.values };
  const msg: AcquisitionMessage = {
    protected: {
      ver: 'v1',
      alg: opts.hmacKey === undefined ? 'none' : 'HS256',
      iat: draft.protected?.iat ?? Math.floor(Date.now() / 1000),
    },
    signature: ZERO_SIGNATURE,
    payload,
  };
  validate(msg, 'Cannot encode this sample');
  const bytes = encodeRaw(msg, opts.format);
  if (opts.hmacKey === undefined) return bytes;

  const marker = placeholderMarker(opts.format);
  const at = bytes.indexOf(marker);
  if (at < 0) throw new CoreError('Internal', 'Signature placeholder not found in the encoded message');
  const valueAt = at + marker.length - ZERO_SIGNATURE.length;
  const hex = createHmac('sha256', opts.hmacKey).update(bytes).digest('hex');
  bytes.write(hex, valueAt, 'latin1'); // same length as the zeros, so no other byte moves
  return bytes;
}

function sensorCopy(s: AcquisitionSensor): AcquisitionSensor {
  return { name: s.name, units: s.units };
}

export function detectAcquisitionFormat(bytes: Uint8Array): AcquisitionFormat {
  // A JSON object starts with '{' after an optional BOM and whitespace; a CBOR map starts with
  // 0xa0..0xbf, never with 0x7b (a 27-byte text string) or a whitespace byte.
  let i = hasBom(bytes) ? 3 : 0;
  while (i < bytes.length && isJsonSpace(bytes[i])) i++;
  return bytes[i] === 0x7b ? 'json' : 'cbor';
}

function hasBom(bytes: Uint8Array): boolean {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

export function decodeAcquisition(bytes: Uint8Array, format: AcquisitionFormat): AcquisitionMessage {
  let doc: unknown;
  try {
    const text = () => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8', hasBom(bytes) ? 3 : 0);
    doc = format === 'json' ? JSON.parse(text()) : cbor.decode(bytes);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new CoreError('InvalidArguments', `Not a valid ${format === 'json' ? 'JSON' : 'CBOR'} acquisition file (${why}): check the file's format and extension`);
  }
  return validate(doc, 'Invalid acquisition file');
}

/**
 * Finds the signature value inside the received bytes, anchored on its key so the same hex text
 * elsewhere cannot be mistaken for it. JSON from other tools may have whitespace around ':'.
 */
function signatureOffset(bytes: Buffer, format: AcquisitionFormat, signature: string): number {
  const needle = Buffer.from(signature, 'latin1');
  for (let at = bytes.indexOf(needle); at >= 0; at = bytes.indexOf(needle, at + 1)) {
    if (format === 'cbor') {
      const key = CBOR_SIGNATURE_KEY;
      if (at >= key.length && bytes.subarray(at - key.length, at).equals(key)) return at;
      continue;
    }
    let i = at - 1;
    if (bytes[i] !== 0x22) continue; // opening quote of the value
    i--;
    while (i >= 0 && isJsonSpace(bytes[i])) i--;
    if (bytes[i] !== 0x3a) continue; // ':'
    i--;
    while (i >= 0 && isJsonSpace(bytes[i])) i--;
    const key = JSON_SIGNATURE_KEY;
    if (i + 1 >= key.length && bytes.subarray(i + 1 - key.length, i + 1).equals(key)) return at;
  }
  return -1;
}

function isJsonSpace(b: number | undefined): boolean {
  return b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;
}

/**
 * True only for an HS256 message whose signature matches this key. Unsigned messages and
 * mismatches give false; bytes that are not an acquisition file at all throw.
 */
export function verifyAcquisitionSignature(
  bytes: Uint8Array, hmacKey: string, format: AcquisitionFormat = detectAcquisitionFormat(bytes),
): boolean {
  const msg = decodeAcquisition(bytes, format);
  if (msg.protected.alg !== 'HS256' || !/^[0-9a-fA-F]{64}$/.test(msg.signature)) return false;
  const signed = Buffer.from(bytes); // a copy: the caller's bytes stay as they were
  const at = signatureOffset(signed, format, msg.signature);
  if (at < 0) return false;
  signed.fill(0x30, at, at + 64);
  const expected = createHmac('sha256', hmacKey).update(signed).digest();
  return timingSafeEqual(expected, Buffer.from(msg.signature, 'hex'));
}
