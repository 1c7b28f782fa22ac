/**
 * The remote-management wire protocol (../shared/spec/remote-management.md): every message is one
 * object whose single top-level key names its type; the hello's encoding (JSON text or CBOR binary)
 * fixes the encoding of the whole session, both ways.
 */
import { Decoder, Encoder } from 'cbor-x';
import { z } from 'zod';
import type { RemoteSensor } from '../contract/remote-schema.js';

export type Encoding = 'json' | 'cbor';

export interface HelloMessage {
  hello: {
    version: 4;
    apiKey: string;
    deviceId: string;
    deviceType: string;
    connection: 'daemon' | 'ip';
    sensors: RemoteSensor[];
    supportsSnapshotStreaming: false;
    mode: 'ingestion';
  };
}

/** What the device sends while it honours a sample request, in the spec's order. */
export type ProgressMessage =
  | { sample: true }
  | { sampleStarted: true }
  | { sampleReading: true; progressPercentage: number }
  | { sampleProcessing: true }
  | { sampleUploading: true }
  | { sampleFinished: true }
  | { sample: false; error: string };

export type DeviceMessage = HelloMessage | ProgressMessage | { snapshotFailed: true; error: string };

/** A sample request as the platform sends it (`length` and `interval` in ms). */
const SampleWire = z.object({
  label: z.string(),
  length: z.number().positive(),
  path: z.string().min(1),
  hmacKey: z.string().nullish(),
  interval: z.number().positive().nullish(),
  sensor: z.string().nullish(),
  labelColor: z.string().nullish(),
  collectedSampleCount: z.number().nullish(),
  targetSampleCount: z.number().nullish(),
});

export interface SampleRequest {
  label: string;
  lengthMs: number;
  path: string;
  /** The project's HMAC key as the platform sends it; a secret (never logged). */
  hmacKey: string | null;
  intervalMs: number | null;
  sensor: string | null;
  labelColor: string | null;
  collectedSampleCount: number | null;
  targetSampleCount: number | null;
}

export type ServerMessage =
  | { type: 'hello-accepted'; serverTimestamp: number | null }
  | { type: 'hello-refused'; error: string }
  | { type: 'sample'; request: SampleRequest }
  /** A sample request that does not parse: answered {sample:false} with `error`. */
  | { type: 'bad-sample'; error: string }
  | { type: 'startSnapshot' }
  | { type: 'stopSnapshot' }
  /** The server could not parse something we sent ({err: "..."}). */
  | { type: 'server-error'; error: string }
  | { type: 'unknown'; keys: string[] };

const cbor = new Encoder({ useRecords: false, variableMapSize: true });
const cborIn = new Decoder({ useRecords: false, mapsAsObjects: true });

export function encodeMessage(message: DeviceMessage, encoding: Encoding): string | Buffer {
  return encoding === 'json' ? JSON.stringify(message) : Buffer.from(cbor.encode(message));
}

/** Text frames are JSON, binary frames CBOR; throws on a frame that does not parse. */
export function decodeFrame(data: Buffer, isBinary: boolean): unknown {
  return isBinary ? cborIn.decode(data) : JSON.parse(data.toString('utf8'));
}

export function readServerMessage(value: unknown): ServerMessage {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { type: 'unknown', keys: [] };
  const m = value as Record<string, unknown>;
  if ('hello' in m) {
    if (m.hello === true) return { type: 'hello-accepted', serverTimestamp: typeof m.serverTimestamp === 'number' ? m.serverTimestamp : null };
    return { type: 'hello-refused', error: typeof m.err === 'string' ? m.err : typeof m.error === 'string' ? m.error : 'the platform refused the connection without a reason' };
  }
  if ('sample' in m && typeof m.sample === 'object' && m.sample !== null) {
    const parsed = SampleWire.safeParse(m.sample);
    if (!parsed.success) {
      const i = parsed.error.issues[0];
      return { type: 'bad-sample', error: `The platform's sample request could not be read (${i?.path.join('.') || 'request'}: ${i?.message ?? 'invalid'}).` };
    }
    const s = parsed.data;
    return {
      type: 'sample',
      request: {
        label: s.label, lengthMs: s.length, path: s.path, hmacKey: projectHmacKey(s.hmacKey), intervalMs: s.interval ?? null, sensor: s.sensor ?? null,
        labelColor: s.labelColor ?? null, collectedSampleCount: s.collectedSampleCount ?? null, targetSampleCount: s.targetSampleCount ?? null,
      },
    };
  }
  if ('startSnapshot' in m) return { type: 'startSnapshot' };
  if ('stopSnapshot' in m) return { type: 'stopSnapshot' };
  if ('err' in m) return { type: 'server-error', error: String(m.err) };
  return { type: 'unknown', keys: Object.keys(m) };
}

/**
 * The request's HMAC key, or null when the project has none: the platform then sends "0" (as the
 * platform emulator does). Taken as a key, "0" would sign samples with it and, registered as a
 * secret, have the logger redact every 0 in every line from then on.
 */
function projectHmacKey(key: string | null | undefined): string | null {
  const k = key?.trim();
  return k && k !== '0' ? k : null;
}

/**
 * The category a request's `path` names. The spec: clients that upload through a files endpoint
 * take it from the path (training if it says so, else testing); the platform's sampling also
 * accepts post-processing, and its published API client (edge-impulse-api's StartSamplingRequest)
 * declares validation too, so both are read: a validation request recorded as testing would put
 * the take in the wrong set.
 */
/** The sets start-sampling may name (declared by the platform's published API client). */
export type SamplingCategory = 'training' | 'validation' | 'testing' | 'post-processing';

export function categoryOfPath(path: string): SamplingCategory {
  if (path.includes('post-processing')) return 'post-processing';
  if (path.includes('validation')) return 'validation';
  if (path.includes('training')) return 'training';
  return 'testing';
}

/** Without the key: what a log may say about a request. */
export function describeRequest(r: SampleRequest): Record<string, unknown> {
  return { label: r.label, lengthMs: r.lengthMs, path: r.path, intervalMs: r.intervalMs, sensor: r.sensor, hmacKey: r.hmacKey ? '(given)' : null };
}
