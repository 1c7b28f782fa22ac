import { decodeCsv } from './csv.js';
import { decodeWavHeader } from './wav.js';
import { CborReader, CborTruncatedError } from './cbor-rows.js';

/**
 * A sample's length in ms, read from what a reader already holds of the file, without decoding
 * its readings: a WAV's header (frames / rate), a CBOR acquisition file's `interval_ms` and the
 * element count of its `values` array (its header says it; an open-ended array is counted by
 * skipping), a JSON one parsed (JSON has no header to read), a CSV's rows and their interval.
 * Null when it cannot be told (not a sensor or audio file, a layout it does not know, a file cut
 * short before what it needs): an unknown length, never a wrong one, and never an error, since
 * whether a file is acceptable is for the quality checks and the platform to say.
 *
 * No dependency beyond the WAV header and CSV code: the bulk reader (upload, import, watched folders) calls
 * it for every file, and a command like `upload` must not load the CBOR and schema libraries.
 */

/** Bytes from the start of a file that hold the header of every layout above (JSON and CSV excepted). */
export const LENGTH_HEAD_BYTES = 64 * 1024;
/** JSON and CSV files are read whole to be measured; over this they are left without a length. */
export const LENGTH_WHOLE_LIMIT = 8 * 1024 * 1024;

/**
 * `bytes` is the whole file, or its first bytes when `totalBytes` (the file's size) is larger.
 * `name` decides the format by its extension, as the platform does.
 */
export function lengthFromBytes(name: string, bytes: Uint8Array, totalBytes: number = bytes.length): number | null {
  const ext = name.slice(name.lastIndexOf('.') + 1).toLowerCase();
  const whole = totalBytes <= bytes.length;
  try {
    if (ext === 'wav') return positive(decodeWavHeader(bytes, totalBytes).durationMs);
    if (ext === 'cbor') return cborLengthMs(bytes);
    if (ext === 'json') return whole ? jsonLengthMs(bytes) : null;
    if (ext === 'csv') return whole ? csvLengthMs(bytes) : null;
  } catch {
    return null;
  }
  return null;
}

/** Which files have a length at all (sensor and audio samples). */
export function hasLength(name: string): boolean {
  return /\.(wav|cbor|json|csv)$/i.test(name);
}

function positive(ms: number): number | null {
  return Number.isFinite(ms) && ms >= 0 ? ms : null;
}

function jsonLengthMs(bytes: Uint8Array): number | null {
  const doc = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as { payload?: { interval_ms?: unknown; values?: unknown } };
  const p = doc?.payload;
  if (!p || typeof p.interval_ms !== 'number' || !(p.interval_ms > 0) || !Array.isArray(p.values)) return null;
  return positive(p.values.length * p.interval_ms);
}

function csvLengthMs(bytes: Uint8Array): number | null {
  // CSV import is lenient (delimiters, units, time scales): its own decoder says what a row is.
  const series = decodeCsv(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  return positive(series.values.length * series.interval_ms);
}

/**
 * Walks the CBOR map {protected, signature, payload: {…, interval_ms, sensors, values}} far enough
 * to know interval_ms and the number of rows. Rows are never decoded: a definite array says its
 * count in its header; an open-ended one is skipped item by item.
 */
function cborLengthMs(bytes: Uint8Array): number | null {
  const r = new CborReader(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  const top = r.untaggedHead();
  if (top.major !== 5) return null;
  for (let i = 0; top.arg === null ? !r.atBreak() : i < top.arg; i++) {
    if (r.text() === 'payload') return payloadLength(r);
    r.skip();
  }
  return null;
}

function payloadLength(r: CborReader): number | null {
  const m = r.untaggedHead();
  if (m.major !== 5) return null;
  let interval: number | null = null;
  let rows: number | null = null;
  try {
    for (let i = 0; m.arg === null ? !r.atBreak() : i < m.arg; i++) {
      const key = r.text();
      if (key === 'interval_ms') interval = r.number();
      else if (key === 'values') {
        const a = r.untaggedHead();
        if (a.major !== 4) return null;
        if (a.arg !== null) {
          rows = a.arg;
          if (interval !== null) break; // the usual order: nothing after it is needed
          for (let k = 0; k < a.arg; k++) r.skip();
        } else {
          let n = 0;
          while (!r.atBreak()) (r.skip(), n++);
          rows = n;
        }
      } else r.skip();
      if (interval !== null && rows !== null) break;
    }
  } catch (err) {
    // Only the file's head was read: what was found so far still counts.
    if (!(err instanceof CborTruncatedError)) throw err;
  }
  if (interval === null || rows === null || !(interval > 0)) return null;
  return positive(rows * interval);
}
