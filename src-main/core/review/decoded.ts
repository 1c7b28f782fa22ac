import { extname } from 'node:path';
import type { Sample } from '../contract/contract.js';
import { CoreError } from '../errors.js';
import { decodeAcquisition, detectAcquisitionFormat } from '../samples/formats/acquisition.js';
import { scanAcquisition, type ScannedAcquisition } from '../samples/formats/acquisition-scan.js';
import { decodeCsv } from '../samples/formats/csv.js';
import { decodeAudioSample, type Decoded } from './decoded-audio.js';

export type { Decoded };

export function decodeSampleBytes(sample: Pick<Sample, 'name' | 'kind'>, bytes: Uint8Array): Decoded {
  const ext = extname(sample.name).toLowerCase();
  const audio = decodeAudioSample(sample, bytes);
  if (audio) return audio;
  if (ext === '.csv') {
    const s = decodeCsv(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
    const columns = s.sensors.map((_, a) => Float64Array.from(s.values, (row) => row[a]!));
    return sensor({ format: 'cbor', alg: 'none', iat: undefined, deviceName: undefined, deviceType: 'CSV_IMPORT', intervalMs: s.interval_ms, sensors: s.sensors, rows: s.values.length, columns });
  }
  if (ext === '.json' || ext === '.cbor') return sensor(scanAcquisition(bytes));
  throw new CoreError('Unavailable', `"${sample.name}" cannot be reviewed here: only sensor files (.json, .cbor, .csv) and audio (.wav) can be plotted.`);
}

/**
 * What decodeSampleBytes would make of these bytes, without the columns where they need not be
 * built: it throws exactly when and what decodeSampleBytes throws. An acquisition JSON file is
 * parsed and validated only (decodeSampleBytes copies the validated rows into columns, which
 * cannot fail); everything else is decoded as it is. A bulk import checks every file with it.
 */
export function checkSampleBytes(sample: Pick<Sample, 'name' | 'kind'>, bytes: Uint8Array): { format: 'json' | 'cbor' | null; rows: number; intervalMs: number } {
  const ext = extname(sample.name).toLowerCase();
  if (sample.kind !== 'audio' && (ext === '.json' || ext === '.cbor') && detectAcquisitionFormat(bytes) === 'json') {
    const p = decodeAcquisition(bytes, 'json').payload;
    return { format: 'json', rows: p.values.length, intervalMs: p.interval_ms };
  }
  const d = decodeSampleBytes(sample, bytes);
  return { format: d.acquisition?.format ?? null, rows: d.rows, intervalMs: d.intervalMs };
}

function sensor(s: ScannedAcquisition): Decoded {
  const { columns, rows, ...acquisition } = s;
  return {
    kind: 'sensor', axes: s.sensors, intervalMs: s.intervalMs, rows, columns, scale: 1, sampleRate: null, acquisition,
    bytes: rows * columns.length * 8,
  };
}
