import { CoreError } from '../../errors.js';
import { decodeAcquisition, detectAcquisitionFormat, intervalProblem, type AcquisitionSensor } from './acquisition.js';
import { CborLayoutError, CborSyntaxError, RowError, scanCborAcquisition, type CborAcquisitionHeader } from './cbor-rows.js';

/**
 * Reads an acquisition file straight into one Float64Array per axis. For CBOR the rows are
 * scanned in place instead of decoded into 360k little JS arrays (an hour at 100 Hz), which is
 * what makes opening a long sample for review fast; JSON goes through the validating decoder.
 * Values stay float64, so a crop writes exactly the numbers that were recorded.
 */
export interface ScannedAcquisition {
  format: 'cbor' | 'json';
  alg: 'HS256' | 'none';
  iat: number | undefined;
  deviceName: string | undefined;
  deviceType: string;
  intervalMs: number;
  sensors: AcquisitionSensor[];
  rows: number;
  /** One array per sensor, `rows` long. */
  columns: Float64Array[];
}

export function scanAcquisition(bytes: Uint8Array): ScannedAcquisition {
  const format = detectAcquisitionFormat(bytes);
  if (format === 'json') return fromDecoded(bytes);
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let head: CborAcquisitionHeader | null = null;
  let columns: Float64Array[] = [];
  let rows = 0;
  try {
    scanCborAcquisition(
      buf,
      (h) => {
        head = h;
        columns = h.sensors.map(() => new Float64Array(h.rows ?? 1024));
      },
      (row) => {
        if (columns.length > 0 && rows === columns[0]!.length) columns = columns.map((c) => grow(c)); // open-ended values array
        for (let a = 0; a < row.length; a++) columns[a]![rows] = row[a]!;
        rows++;
      },
    );
  } catch (err) {
    if (err instanceof CborLayoutError) return fromDecoded(bytes); // unusual layout: let the validating decoder say what is wrong
    if (err instanceof CborSyntaxError) throw new CoreError('InvalidArguments', `Not a valid CBOR acquisition file (${err.message}): check the file's format and extension`);
    if (err instanceof RowError) throw new CoreError('InvalidArguments', `Invalid acquisition file: ${err.message}`);
    throw err;
  }
  const h = head as CborAcquisitionHeader | null;
  // An interval outside what sensors do goes through the decoder, which says what is wrong with it.
  if (!h || intervalProblem(h.intervalMs) !== null || h.sensors.length === 0) return fromDecoded(bytes);
  if (rows === 0) throw new CoreError('InvalidArguments', 'Invalid acquisition file: payload.values is empty: a sample needs at least one row');
  return {
    format, alg: h.alg, iat: h.iat, deviceName: h.deviceName, deviceType: h.deviceType, intervalMs: h.intervalMs,
    sensors: h.sensors.map((s) => ({ name: String(s.name), units: String(s.units ?? '') })),
    rows,
    columns: columns.map((c) => (c.length === rows ? c : c.slice(0, rows))),
  };
}

function grow(c: Float64Array): Float64Array {
  const bigger = new Float64Array(Math.max(1024, c.length * 2));
  bigger.set(c);
  return bigger;
}

function fromDecoded(bytes: Uint8Array): ScannedAcquisition {
  const format = detectAcquisitionFormat(bytes);
  const msg = decodeAcquisition(bytes, format);
  const p = msg.payload;
  const width = p.sensors.length;
  const columns = Array.from({ length: width }, () => new Float64Array(p.values.length));
  p.values.forEach((row, i) => {
    for (let a = 0; a < width; a++) columns[a]![i] = row[a]!;
  });
  return {
    format, alg: msg.protected.alg, iat: msg.protected.iat, deviceName: p.device_name, deviceType: p.device_type,
    intervalMs: p.interval_ms, sensors: p.sensors, rows: p.values.length, columns,
  };
}
