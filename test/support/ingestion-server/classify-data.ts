import { decode as decodeCbor } from 'cbor-x';
import { extensionOf } from './acquisition.js';
import type { StoredSample } from './types.js';

/**
 * A stored sample as the emulated impulse sees it: rows of readings at a fixed interval. Sensor
 * files (JSON or CBOR) give their payload's values; a WAV file gives its first channel, scaled to
 * -1…1 for the model and kept as the integers it holds for the sample wrapper's payload.
 */
export interface Series {
  kind: 'sensor' | 'audio';
  intervalMs: number;
  axes: Array<{ name: string; units: string }>;
  rows: number;
  /** Column a as numbers the model works on (audio: -1…1). */
  column(a: number): Float64Array;
  /** The first `limit` rows as they are stored (audio: the PCM integers). */
  payloadRows(limit: number): number[][];
  deviceType: string;
  deviceName: string;
  signatureMethod: string | null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Null when the bytes are not a time series the emulator reads (images, video, CSV, Parquet). */
export function seriesOf(sample: StoredSample): Series | null {
  const ext = extensionOf(sample.filename) || extensionOf(sample.originalName);
  if (ext === '.json' || ext === '.cbor') return sensorSeries(sample.bytes, ext === '.json');
  if (ext === '.wav') return wavSeries(sample.bytes);
  return null;
}

function sensorSeries(bytes: Buffer, json: boolean): Series | null {
  let doc: unknown;
  try {
    doc = json ? JSON.parse(bytes.toString('utf8')) : decodeCbor(bytes);
  } catch {
    return null;
  }
  // Stored files passed the ingestion checks, so the shape is known good.
  if (!isObject(doc) || !isObject(doc['payload'])) return null;
  const p = doc['payload'];
  const values = p['values'] as number[][];
  const sensors = p['sensors'] as Array<{ name: string; units: string }>;
  const prot = isObject(doc['protected']) ? doc['protected'] : {};
  const columns = new Map<number, Float64Array>();
  return {
    kind: 'sensor',
    intervalMs: p['interval_ms'] as number,
    axes: sensors.map((s) => ({ name: s.name, units: s.units })),
    rows: values.length,
    column(a) {
      let c = columns.get(a);
      if (!c) columns.set(a, (c = Float64Array.from(values, (row) => row[a] ?? 0)));
      return c;
    },
    payloadRows: (limit) => values.slice(0, limit),
    deviceType: typeof p['device_type'] === 'string' ? p['device_type'] : '',
    deviceName: typeof p['device_name'] === 'string' ? p['device_name'] : '',
    signatureMethod: typeof prot['alg'] === 'string' && prot['alg'] !== 'none' ? prot['alg'] : null,
  };
}

function wavSeries(b: Buffer): Series | null {
  let rate = 0;
  let channels = 1;
  let bits = 16;
  let format = 1;
  let dataAt = -1;
  let dataBytes = 0;
  for (let pos = 12; pos + 8 <= b.length; ) {
    const id = b.toString('latin1', pos, pos + 4);
    const size = b.readUInt32LE(pos + 4);
    if (id === 'fmt ' && pos + 24 <= b.length) {
      format = b.readUInt16LE(pos + 8);
      channels = b.readUInt16LE(pos + 10);
      rate = b.readUInt32LE(pos + 12);
      bits = b.readUInt16LE(pos + 22);
      // WAVE_FORMAT_EXTENSIBLE: the real format is the first two bytes of the sub-format GUID.
      if (format === 0xfffe && pos + 34 <= b.length) format = b.readUInt16LE(pos + 32);
    } else if (id === 'data') {
      dataAt = pos + 8;
      dataBytes = Math.min(size, b.length - dataAt);
      break;
    }
    pos += 8 + size + (size % 2);
  }
  const width = bits / 8;
  if (rate <= 0 || dataAt < 0 || channels < 1 || ![1, 2, 3, 4].includes(width)) return null;
  const frame = width * channels;
  const rows = Math.floor(dataBytes / frame);
  const raw = (i: number): number => {
    const at = dataAt + i * frame;
    if (format === 3 && width === 4) return b.readFloatLE(at);
    if (width === 1) return b.readUInt8(at) - 128;
    if (width === 2) return b.readInt16LE(at);
    if (width === 3) return b.readIntLE(at, 3);
    return b.readInt32LE(at);
  };
  const scale = format === 3 ? 1 : 2 ** (bits - 1);
  let col: Float64Array | null = null;
  return {
    kind: 'audio',
    intervalMs: 1000 / rate,
    axes: [{ name: 'audio', units: 'wav' }],
    rows,
    column() {
      if (!col) {
        col = new Float64Array(rows);
        for (let i = 0; i < rows; i++) col[i] = raw(i) / scale;
      }
      return col;
    },
    payloadRows: (limit) => Array.from({ length: Math.min(limit, rows) }, (_, i) => [raw(i)]),
    deviceType: 'AUDIO',
    deviceName: '',
    signatureMethod: null,
  };
}
