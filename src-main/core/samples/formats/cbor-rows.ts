import { decode as cborDecode } from 'cbor-x';

/**
 * Walks an acquisition file in CBOR without building its rows: the header fields are decoded as
 * usual (they are small), and `payload.values` is read number by number into one reused row, so
 * an hour-long capture costs no more memory than a short one. Shared by the data-quality checks
 * (which only look at each row) and the review decoder (which keeps them as columns).
 */
export interface CborAcquisitionHeader {
  intervalMs: number;
  sensors: Array<{ name: string; units: string }>;
  /** From the values array's own header; null when it is open-ended (indefinite length). */
  rows: number | null;
  alg: 'HS256' | 'none';
  iat: number | undefined;
  deviceName: string | undefined;
  deviceType: string;
}

/** Not laid out the way the platform writes it (key order, missing fields): read it the slow way. */
export class CborLayoutError extends Error {}

export function scanCborAcquisition(buf: Buffer, onHeader: (h: CborAcquisitionHeader) => void, onRow: (row: Float64Array) => void): number {
  const r = new CborReader(buf);
  const top = r.mapHeader();
  let rows = -1;
  let prot: { alg?: unknown; iat?: unknown } = {};
  for (let i = 0; top === null ? !r.atBreak() : i < top; i++) {
    const key = r.text();
    if (key === 'protected') {
      const v = r.item();
      if (v && typeof v === 'object') prot = v as typeof prot;
    } else if (key === 'payload') {
      rows = scanPayload(r, prot, onHeader, onRow);
    } else r.skip();
  }
  if (rows < 0) throw new CborLayoutError('no payload');
  // cbor-x refuses these too ("end of buffer not reached"): a damaged file, or two files in one.
  if (r.p < buf.length) throw new CborSyntaxError(`${buf.length - r.p} bytes follow the end of the message: the file is damaged, or two files were joined into one`);
  return rows;
}

function scanPayload(r: CborReader, prot: { alg?: unknown; iat?: unknown }, onHeader: (h: CborAcquisitionHeader) => void, onRow: (row: Float64Array) => void): number {
  const n = r.mapHeader();
  let intervalMs: number | null = null;
  let sensors: CborAcquisitionHeader['sensors'] | null = null;
  let deviceName: string | undefined;
  let deviceType = 'UNKNOWN';
  let rows = -1;
  for (let i = 0; n === null ? !r.atBreak() : i < n; i++) {
    const key = r.text();
    if (key === 'interval_ms') intervalMs = r.number();
    else if (key === 'sensors') sensors = r.item() as CborAcquisitionHeader['sensors'];
    else if (key === 'device_name' || key === 'device_type') {
      const v = r.item();
      if (typeof v === 'string') key === 'device_name' ? (deviceName = v) : (deviceType = v);
    } else if (key === 'values') {
      // The platform's key order puts sensors and interval before values; anything else is read the slow way.
      if (intervalMs === null || !Array.isArray(sensors)) throw new CborLayoutError('values before the header fields');
      const count = r.arrayHeader();
      // Every row takes at least a byte: a count the rest of the file cannot hold is a damaged
      // header (or a cut file), and must not size the columns (6442450944 rows asked for 48 GB).
      const left = r.b.length - r.p;
      if (count !== null && count > left) throw new CborTruncatedError(`payload.values says it holds ${count} rows, but only ${left} bytes of the file follow: the file is cut short or damaged`);
      onHeader({
        intervalMs, sensors, rows: count, deviceName, deviceType,
        alg: prot.alg === 'HS256' ? 'HS256' : 'none',
        iat: typeof prot.iat === 'number' ? prot.iat : undefined,
      });
      rows = scanValues(r, count, sensors.length, onRow);
    } else r.skip();
  }
  if (rows < 0) throw new CborLayoutError('no values');
  return rows;
}

function scanValues(r: CborReader, count: number | null, width: number, onRow: (row: Float64Array) => void): number {
  const row = new Float64Array(width);
  let i = 0;
  // Rows as every encoder writes them (a definite array of < 24 values) take the fast path.
  const rowHead = width < 24 ? 0x80 | width : -1;
  const b = r.b;
  for (; count === null ? !r.atBreak() : i < count; i++) {
    if (b[r.p] === rowHead) r.p++;
    else {
      const w = r.arrayHeader();
      if (w !== width) throw new RowError(`payload.values[${i}] has ${w ?? 'an open-ended number of'} values but there are ${width} sensors`);
    }
    for (let a = 0; a < width; a++) {
      const v = r.number();
      if (!Number.isFinite(v)) throw new RowError(`payload.values[${i}] column ${a} is not a finite number`);
      row[a] = v;
    }
    onRow(row);
  }
  return i;
}

/** A row the platform would refuse: the file is broken, not merely laid out differently. */
export class RowError extends Error {}
/** Not CBOR at all from some byte on (cut short, a reserved byte): broken too. */
export class CborSyntaxError extends RowError {}
/** The bytes end inside a value: the file is cut short, or only its head was read. */
export class CborTruncatedError extends CborSyntaxError {}

/** A cursor over CBOR bytes that never builds objects: rows are read value by value, anything else skipped. */
export class CborReader {
  p = 0;
  readonly #view: DataView;
  constructor(readonly b: Buffer) {
    // DataView reads are inlined by V8; Buffer's readDoubleBE checks its arguments on every call.
    this.#view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }

  #need(n: number): void {
    if (this.p + n > this.b.length) throw new CborTruncatedError('the file ends in the middle of a value (truncated)');
  }

  /** Major type and argument; null argument = indefinite length. */
  head(): { major: number; arg: number | null; info: number } {
    this.#need(1);
    const ib = this.b[this.p++]!;
    const major = ib >> 5;
    const info = ib & 31;
    if (info < 24) return { major, arg: info, info };
    if (info === 24) return this.#need(1), { major, arg: this.b[this.p++]!, info };
    if (info === 25) { this.#need(2); const v = this.b.readUInt16BE(this.p); this.p += 2; return { major, arg: v, info }; }
    if (info === 26) { this.#need(4); const v = this.b.readUInt32BE(this.p); this.p += 4; return { major, arg: v, info }; }
    if (info === 27) { this.#need(8); const v = Number(this.b.readBigUInt64BE(this.p)); this.p += 8; return { major, arg: v, info }; }
    if (info === 31) return { major, arg: null, info };
    throw new CborSyntaxError(`reserved CBOR byte 0x${ib.toString(16)}`);
  }

  atBreak(): boolean {
    if (this.b[this.p] === 0xff) {
      this.p++;
      return true;
    }
    return false;
  }

  mapHeader(): number | null {
    const h = this.#untagged();
    if (h.major !== 5) throw new CborLayoutError('expected a map');
    return h.arg;
  }

  arrayHeader(): number | null {
    const h = this.#untagged();
    if (h.major !== 4) throw new RowError('expected an array of rows');
    return h.arg;
  }

  /** The next item's head, tags passed over. */
  untaggedHead() {
    return this.#untagged();
  }

  #untagged() {
    let h = this.head();
    while (h.major === 6) h = this.head();
    return h;
  }

  text(): string {
    const h = this.head();
    if (h.major !== 3 || h.arg === null) throw new CborLayoutError('expected a text key');
    this.#need(h.arg);
    const s = this.b.toString('utf8', this.p, this.p + h.arg);
    this.p += h.arg;
    return s;
  }

  number(): number {
    // The common encodings inline, without the generic head() (which allocates): this runs once per value.
    const b = this.b;
    const p = this.p;
    const ib = b[p];
    if (ib === 0xfb && p + 9 <= b.length) return (this.p = p + 9), this.#view.getFloat64(p + 1);
    if (ib !== undefined && ib < 0x18) return (this.p = p + 1), ib;
    if (ib !== undefined && ib >= 0x20 && ib < 0x38) return (this.p = p + 1), 0x1f - ib;
    if (ib === 0xfa && p + 5 <= b.length) return (this.p = p + 5), this.#view.getFloat32(p + 1);
    return this.#numberSlow();
  }

  #numberSlow(): number {
    const start = this.p;
    const h = this.#untagged();
    if (h.major === 0 && h.arg !== null) return h.arg;
    if (h.major === 1 && h.arg !== null) return -1 - h.arg;
    if (h.major === 7) {
      const b = this.b;
      if (h.info === 27) return b.readDoubleBE(this.p - 8);
      if (h.info === 26) return b.readFloatBE(this.p - 4);
      if (h.info === 25) return half(b.readUInt16BE(this.p - 2));
    }
    // Not a number (text, null…): skipped and reported as NaN, so the caller names the row and column.
    this.p = start;
    this.skip();
    return NaN;
  }

  /** Decodes one (small) item with the regular decoder. */
  item(): unknown {
    const start = this.p;
    this.skip();
    return cborDecode(this.b.subarray(start, this.p));
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
      case 6: this.skip(); return;
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
