import type { QualityFinding } from '../../contract/contract.js';
import { decodeAcquisition, detectAcquisitionFormat } from '../formats/acquisition.js';
import { AxisScan } from './axis-scan.js';
import { CborLayoutError, scanCborAcquisition } from '../formats/cbor-rows.js';

export interface SensorScan {
  rows: number;
  intervalMs: number;
  lengthMs: number;
  findings: QualityFinding[];
}

/**
 * Checks the rows of an acquisition file (CBOR or JSON). CBOR, which every capture is written
 * in, is walked without materialising rows; JSON, and CBOR laid out in an unusual key order, go
 * through the regular decoder, which also says precisely what is wrong with a broken file.
 */
export function scanSensorFile(bytes: Buffer): SensorScan {
  if (detectAcquisitionFormat(bytes) === 'cbor') {
    let scan: AxisScan | null = null;
    try {
      const rows = scanCborAcquisition(
        bytes,
        (h) => (scan = new AxisScan(h.sensors.map((s) => String(s?.name ?? '')), h.intervalMs)),
        (row) => scan!.push(row),
      );
      const s = scan as AxisScan | null;
      if (s && s.intervalMs > 0 && rows > 0) return summary(s);
    } catch (err) {
      if (!(err instanceof CborLayoutError)) throw err;
    }
  }
  const msg = decodeAcquisition(bytes, detectAcquisitionFormat(bytes));
  const scan = new AxisScan(msg.payload.sensors.map((s) => s.name), msg.payload.interval_ms);
  for (const row of msg.payload.values) scan.push(row);
  return summary(scan);
}

function summary(scan: AxisScan): SensorScan {
  return { rows: scan.rows, intervalMs: scan.intervalMs, lengthMs: scan.rows * scan.intervalMs, findings: scan.findings() };
}
