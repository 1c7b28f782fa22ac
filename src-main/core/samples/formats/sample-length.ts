import { decodeCsv } from './csv.js';
import { decodeWavHeader } from './wav.js';

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

/** Ran past the bytes at hand: the file is cut short, or only its head was read. */
class OutOfBytes extends Error {}

/**
 * Walks the CBOR map {protected, signature, payload: {…, interval_ms, sensors, values}} far enough
 * to know interval_ms and the number of rows. Rows are never decoded: a definite array says its
 * count in its header; an open-ended one is skipped item by item.
 */
function cborLengthMs(bytes: Uint8Array): number | null {
  const r = new CborHead(bytes);
  const top = r.head();
  if (top.major !== 5) return null;
  for (let i = 0; top.arg === null ? !r.atBreak() : i < top.arg; i++) {
    if (r.textKey() === 'payload') return payloadLength(r);
    r.skip();
  }
  return null;
}

function payloadLength(r: CborHead): number | null {
  const m = r.head();
  if (m.major !== 5) return null;
  let interval: number | null = null;
  let rows: number | null = null;
  try {
    for (let i = 0; m.arg === null ? !r.atBreak() : i < m.arg; i++) {
      const key = r.textKey();
      if (key === 'interval_ms') interval = r.number();
      else if (key === 'values') {
        const a = r.head();
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
    if (!(err instanceof OutOfBytes)) throw err;
  }
  if (interval === null || rows === null || !(interval > 0)) return null;
  return positive(rows * interval);
}

class CborHead {
  p = 0;
  readonly #b: Uint8Array;
  readonly #view: DataView;
  constructor(b: Uint8Array) {
    this.#b = b;
    this.#view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }

  #need(n: number): void {
    if (this.p + n > this.#b.length) throw new OutOfBytes();
  }

  /** Major type and argument (null = indefinite length); tags are passed over. */
  head(): { major: number; arg: number | null; info: number } {
    for (;;) {
      this.#need(1);
      const ib = this.#b[this.p++]!;
      const major = ib >> 5;
      const info = ib & 31;
      let arg: number | null;
      if (info < 24) arg = info;
      else if (info === 24) (this.#need(1), (arg = this.#b[this.p]!), (this.p += 1));
      else if (info === 25) (this.#need(2), (arg = this.#view.getUint16(this.p)), (this.p += 2));
      else if (info === 26) (this.#need(4), (arg = this.#view.getUint32(this.p)), (this.p += 4));
      else if (info === 27) (this.#need(8), (arg = Number(this.#view.getBigUint64(this.p))), (this.p += 8));
      else if (info === 31) arg = null;
      else throw new Error('reserved CBOR byte');
      if (major === 6) continue; // a tag: the item follows
      return { major, arg, info };
    }
  }

  atBreak(): boolean {
    this.#need(1);
    if (this.#b[this.p] === 0xff) {
      this.p++;
      return true;
    }
    return false;
  }

  textKey(): string {
    const h = this.head();
    if (h.major !== 3 || h.arg === null) throw new Error('not a text key');
    this.#need(h.arg);
    const s = Buffer.from(this.#b.buffer, this.#b.byteOffset + this.p, h.arg).toString('utf8');
    this.p += h.arg;
    return s;
  }

  number(): number {
    const h = this.head();
    if (h.major === 0 && h.arg !== null) return h.arg;
    if (h.major === 1 && h.arg !== null) return -1 - h.arg;
    if (h.major === 7) {
      if (h.info === 27) return this.#view.getFloat64(this.p - 8);
      if (h.info === 26) return this.#view.getFloat32(this.p - 4);
      if (h.info === 25) return half(this.#view.getUint16(this.p - 2));
    }
    return NaN;
  }

  skip(): void {
    const h = this.head();
    switch (h.major) {
      case 0: case 1: case 7: return;
      case 2: case 3:
        if (h.arg === null) { while (!this.atBreak()) this.skip(); return; }
        this.#need(h.arg); this.p += h.arg; return;
      case 4:
        if (h.arg === null) { while (!this.atBreak()) this.skip(); return; }
        for (let i = 0; i < h.arg; i++) this.skip(); return;
      case 5:
        if (h.arg === null) { while (!this.atBreak()) (this.skip(), this.skip()); return; }
        for (let i = 0; i < h.arg; i++) (this.skip(), this.skip()); return;
    }
  }
}

function half(h: number): number {
  const exp = (h >> 10) & 0x1f;
  const mant = h & 0x3ff;
  const sign = h & 0x8000 ? -1 : 1;
  if (exp === 0) return sign * 2 ** -14 * (mant / 1024);
  if (exp === 31) return mant ? NaN : sign * Infinity;
  return sign * 2 ** (exp - 15) * (1 + mant / 1024);
}
