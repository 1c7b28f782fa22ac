import { CoreError } from '../../errors.js';
import { decodeAcquisition, detectAcquisitionFormat, type AcquisitionSensor } from './acquisition.js';

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
  const r = new CborScanner(bytes);
  let doc: unknown;
  try {
    doc = r.item();
  } catch (err) {
    if (err instanceof CoreError) throw err;
    throw new CoreError('InvalidArguments', `Not a valid CBOR acquisition file (${(err as Error).message}): check the file's format and extension`);
  }
  const msg = doc as { protected?: { alg?: unknown; iat?: unknown }; payload?: Record<string, unknown> };
  const p = msg?.payload;
  const sensors = p?.sensors as AcquisitionSensor[] | undefined;
  const values = r.values;
  if (!p || typeof p.interval_ms !== 'number' || !(p.interval_ms > 0) || !Array.isArray(sensors) || sensors.length === 0 || !values) {
    return fromDecoded(bytes); // unusual layout: let the validating decoder say what is wrong
  }
  if (values.rows === 0) throw new CoreError('InvalidArguments', 'Invalid acquisition file: payload.values is empty: a sample needs at least one row');
  if (values.width !== sensors.length) {
    throw new CoreError('InvalidArguments', `Invalid acquisition file: rows have ${values.width} values but there are ${sensors.length} sensors`);
  }
  return {
    format,
    alg: msg.protected?.alg === 'HS256' ? 'HS256' : 'none',
    iat: typeof msg.protected?.iat === 'number' ? msg.protected.iat : undefined,
    deviceName: typeof p.device_name === 'string' ? p.device_name : undefined,
    deviceType: typeof p.device_type === 'string' ? p.device_type : 'UNKNOWN',
    intervalMs: p.interval_ms,
    sensors: sensors.map((s) => ({ name: String(s.name), units: String(s.units ?? '') })),
    rows: values.rows,
    columns: transpose(values.data, values.rows, values.width),
  };
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

function transpose(data: Float64Array, rows: number, width: number): Float64Array[] {
  const cols = Array.from({ length: width }, () => new Float64Array(rows));
  for (let a = 0; a < width; a++) {
    const c = cols[a]!;
    for (let i = 0, p = a; i < rows; i++, p += width) c[i] = data[p]!;
  }
  return cols;
}

/** A small CBOR reader: generic for the header, a tight loop for the array under the key "values". */
class CborScanner {
  #p = 0;
  readonly #b: Uint8Array;
  readonly #view: DataView;
  values: { data: Float64Array; rows: number; width: number } | null = null;

  constructor(b: Uint8Array) {
    this.#b = b;
    this.#view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }

  item(): unknown {
    const { major, arg, indefinite } = this.#head();
    switch (major) {
      case 0: return arg;
      case 1: return -1 - arg;
      case 2: { this.#need(arg); const v = this.#b.subarray(this.#p, this.#p + arg); this.#p += arg; return v; }
      case 3: { this.#need(arg); const v = Buffer.from(this.#b.buffer, this.#b.byteOffset + this.#p, arg).toString('utf8'); this.#p += arg; return v; }
      case 4: {
        const out: unknown[] = [];
        if (indefinite) while (!this.#brk()) out.push(this.item());
        else for (let i = 0; i < arg; i++) out.push(this.item());
        return out;
      }
      case 5: {
        const out: Record<string, unknown> = {};
        const entry = () => {
          const k = this.item();
          if (k === 'values' && this.#peekMajor() === 4) {
            this.#scanValues();
            out[k] = [];
          } else out[String(k)] = this.item();
        };
        if (indefinite) while (!this.#brk()) entry();
        else for (let i = 0; i < arg; i++) entry();
        return out;
      }
      case 6: return this.item(); // tags carry no meaning we need here
      default: return this.#simple(arg, indefinite);
    }
  }

  #scanValues(): void {
    const outer = this.#head();
    let cap = outer.indefinite ? 1024 : outer.arg;
    let width = -1;
    let data = new Float64Array(0);
    let rows = 0;
    const b = this.#b;
    const view = this.#view;
    const end = b.length;
    for (let r = 0; outer.indefinite ? !this.#brk() : r < outer.arg; r++) {
      // The hot loop of opening a long sample: position in a local, no allocation per row or value.
      let p = this.#p;
      if (p >= end) throw new Error('unexpected end of data');
      const h = b[p]!;
      let n: number;
      if (h >= 0x80 && h <= 0x97) (n = h - 0x80), p++;
      else {
        const row = this.#head();
        if (row.major !== 4 || row.indefinite) throw new CoreError('InvalidArguments', `Invalid acquisition file: payload.values[${r}] is not an array`);
        n = row.arg;
        p = this.#p;
      }
      if (width < 0) {
        width = n;
        data = new Float64Array(Math.max(1, cap) * width);
      } else if (n !== width) {
        throw new CoreError('InvalidArguments', `Invalid acquisition file: payload.values[${r}] has ${n} values but row 0 has ${width}`);
      }
      if (rows === cap) {
        cap *= 2;
        const bigger = new Float64Array(cap * width);
        bigger.set(data);
        data = bigger;
      }
      let o = rows * width;
      for (let a = 0; a < width; a++) {
        const t = b[p];
        let v: number;
        if (t === 0xfb && p + 9 <= end) (v = view.getFloat64(p + 1)), (p += 9);
        else if (t !== undefined && t <= 0x17) (v = t), p++;
        else if (t !== undefined && t >= 0x20 && t <= 0x37) (v = 0x1f - t), p++;
        else if (t === 0xfa && p + 5 <= end) (v = view.getFloat32(p + 1)), (p += 5);
        else {
          this.#p = p;
          const x = this.item();
          v = typeof x === 'number' ? x : NaN;
          p = this.#p;
        }
        if (!Number.isFinite(v)) throw new CoreError('InvalidArguments', `Invalid acquisition file: payload.values[${r}] column ${a} is not a finite number`);
        data[o++] = v;
      }
      this.#p = p;
      rows++;
    }
    this.values = { data, rows, width: Math.max(0, width) };
  }

  #head(): { major: number; arg: number; indefinite: boolean } {
    this.#check();
    const b = this.#b[this.#p++]!;
    const major = b >> 5;
    const info = b & 0x1f;
    if (info < 24) return { major, arg: info, indefinite: false };
    if (info === 31) return { major, arg: 0, indefinite: true };
    const v = this.#view;
    const at = this.#p;
    let arg: number;
    if (major === 7) return { major, arg: info, indefinite: false }; // floats: read in #simple
    if (info === 24) (arg = v.getUint8(at)), (this.#p += 1);
    else if (info === 25) (arg = v.getUint16(at)), (this.#p += 2);
    else if (info === 26) (arg = v.getUint32(at)), (this.#p += 4);
    else if (info === 27) (arg = Number(v.getBigUint64(at))), (this.#p += 8);
    else throw new Error(`reserved additional info ${info} at byte ${at - 1}`);
    return { major, arg, indefinite: false };
  }

  #simple(info: number, indefinite: boolean): unknown {
    if (indefinite) throw new Error(`unexpected break at byte ${this.#p - 1}`);
    const v = this.#view;
    const at = this.#p;
    if (info === 25) return (this.#p += 2), halfToFloat(v.getUint16(at));
    if (info === 26) return (this.#p += 4), v.getFloat32(at);
    if (info === 27) return (this.#p += 8), v.getFloat64(at);
    if (info === 20) return false;
    if (info === 21) return true;
    if (info === 22 || info === 23) return null;
    if (info === 24) return (this.#p += 1), undefined;
    return undefined;
  }

  #peekMajor(): number {
    this.#check();
    return this.#b[this.#p]! >> 5;
  }

  #brk(): boolean {
    this.#check();
    if (this.#b[this.#p] === 0xff) {
      this.#p++;
      return true;
    }
    return false;
  }

  #check(): void {
    if (this.#p >= this.#b.length) throw new Error('unexpected end of data');
  }

  #need(n: number): void {
    if (this.#p + n > this.#b.length) throw new Error('unexpected end of data');
  }
}

function halfToFloat(h: number): number {
  const exp = (h >> 10) & 0x1f;
  const mant = h & 0x3ff;
  const sign = h & 0x8000 ? -1 : 1;
  if (exp === 0) return sign * 2 ** -14 * (mant / 1024);
  if (exp === 31) return mant ? NaN : sign * Infinity;
  return sign * 2 ** (exp - 15) * (1 + mant / 1024);
}
