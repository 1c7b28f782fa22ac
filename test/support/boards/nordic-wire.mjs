// The wire format of Nordic's data forwarder (sdk-edge-ai samples/data_forwarder), written from
// the protocol digest (../shared/spec/nordic-data-forwarder.md) and independently of the app's
// decoder: zcbor-style CBOR (indefinite maps and arrays by default, shortest integers, float32),
// LEN(le16) | CBOR | [CRC-16/MCRF4XX le16], COBS with a trailing 0x00. Used by the board emulator
// and by tests that need exact frames.

/** CRC-16/MCRF4XX bit by bit (poly 0x1021 reflected = 0x8408, init 0xFFFF, no final XOR). */
export function crc16(bytes) {
  let crc = 0xffff;
  for (const b of bytes) {
    crc ^= b;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0x8408 : crc >>> 1;
  }
  return crc;
}

/** COBS with the trailing delimiter, as Zephyr's cobs_encode(..., COBS_FLAG_TRAILING_DELIMITER). */
export function cobs(data) {
  const out = [0];
  let codeAt = 0;
  let code = 1;
  data.forEach((b, i) => {
    if (b === 0) {
      out[codeAt] = code;
      codeAt = out.length;
      out.push(0);
      code = 1;
      return;
    }
    out.push(b);
    if (++code === 0xff) {
      out[codeAt] = code;
      code = 1;
      if (i + 1 < data.length) {
        codeAt = out.length;
        out.push(0);
      } else codeAt = -1;
    }
  });
  if (codeAt >= 0) out[codeAt] = code;
  out.push(0);
  return Buffer.from(out);
}

/** A raw frame (length prefix, CBOR, CRC when asked) turned into wire bytes. */
export function frame(cbor, { crc = true } = {}) {
  const raw = [cbor.length & 0xff, cbor.length >> 8, ...cbor];
  if (crc) {
    const c = crc16(cbor);
    raw.push(c & 0xff, c >> 8);
  }
  return cobs(raw);
}

// --- CBOR, the few items the firmware writes -------------------------------------------------
function head(major, n) {
  const m = major << 5;
  if (n < 24) return [m | n];
  if (n < 0x100) return [m | 24, n];
  if (n < 0x10000) return [m | 25, n >> 8, n & 0xff];
  return [m | 26, (n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
}
const uint = (n) => head(0, n);
const int = (n) => (n >= 0 ? head(0, n) : head(1, -1 - n));
const tstr = (s) => {
  const b = Buffer.from(s, 'utf8');
  return [...head(3, b.length), ...b];
};
const f32 = (x) => {
  const b = Buffer.alloc(5);
  b[0] = 0xfa;
  b.writeFloatBE(x, 1);
  return [...b];
};
const map = (entries, indefinite) => (indefinite ? [0xbf, ...entries.flat(), 0xff] : [...head(5, entries.length / 2), ...entries.flat()]);
const array = (items, indefinite) => (indefinite ? [0x9f, ...items.flat(), 0xff] : [...head(4, items.length), ...items.flat()]);

/** `indefinite` (zcbor's default) or definite lengths for maps and arrays. */
export function sessionInfo({ sid, hz, names, st = 1, dr = 0, name = 'nRF DataFwd' }, { indefinite = true } = {}) {
  const d = map([tstr('sid'), uint(sid), tstr('hz'), uint(hz), tstr('ch'), uint(names.length), tstr('ch_n'), array(names.map(tstr), indefinite), tstr('st'), uint(st), tstr('dr'), uint(dr), tstr('name'), tstr(name)], indefinite);
  return Buffer.from(map([tstr('t'), tstr('si'), tstr('d'), d], indefinite));
}

/** `int32`: values are sent as micro-units (rounded, clamped to int32), else as float32. */
export function sensorData({ seq, ts, values }, { indefinite = true, int32 = false } = {}) {
  const items = values.map((v) => (int32 ? int(Math.max(-2147483648, Math.min(2147483647, Math.round(v * 1e6)))) : f32(v)));
  const d = map([tstr('seq'), uint(seq), tstr('ts'), uint(ts), tstr('val'), array(items, indefinite)], indefinite);
  return Buffer.from(map([tstr('t'), tstr('sd'), tstr('d'), d], indefinite));
}

/** What a value looks like after the wire: float32 rounding, or int32 micro-units divided back. */
export function onWire(v, int32) {
  return int32 ? Math.max(-2147483648, Math.min(2147483647, Math.round(v * 1e6))) / 1e6 : Math.fround(v);
}

/** The emulator's test signal: channel c of sample seq, a different wave per channel, with exact whole numbers now and then. */
export function nordicValue(seq, c) {
  if (seq % 97 === 0) return 9 - c; // whole floats happen (9.0 at 1600 Hz): the decoder must not take them for ints
  // + 0: never −0, which int32 micro-units cannot carry (the host reads 0) and tests compare with Object.is.
  return Math.round(Math.sin(seq / 25 + c) * (c + 1) * 4000) / 1000 + 0;
}
