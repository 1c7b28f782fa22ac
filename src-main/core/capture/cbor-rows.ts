/**
 * CBOR for rows of numbers, written the way cbor-x (our Encoder settings) writes them, so a
 * recording streamed row by row is byte-identical to encoding the whole message at once:
 * 32-bit integers as CBOR integers (−0 as 0), every other number as a 64-bit float.
 */
export function encodeRows(values: ArrayLike<number>, width: number, rows: number): Buffer {
  // Worst case per value: 9 bytes (float64) + 1 byte row header (width < 24).
  const out = Buffer.allocUnsafe(rows * (width * 9 + 9));
  let p = 0;
  for (let r = 0; r < rows; r++) {
    p = writeArrayHeader(out, p, width);
    for (let a = 0; a < width; a++) p = writeNumber(out, p, values[r * width + a]!);
  }
  return out.subarray(0, p);
}

export function writeArrayHeader(out: Buffer, p: number, n: number): number {
  if (n < 0x18) out[p++] = 0x80 | n;
  else if (n < 0x100) (out[p++] = 0x98), (out[p++] = n);
  else if (n < 0x10000) (out[p++] = 0x99), out.writeUInt16BE(n, p), (p += 2);
  else (out[p++] = 0x9a), out.writeUInt32BE(n, p), (p += 4);
  return p;
}

export function arrayHeader(n: number): Buffer {
  const b = Buffer.alloc(5);
  return b.subarray(0, writeArrayHeader(b, 0, n));
}

function writeNumber(out: Buffer, p: number, v: number): number {
  if (v >>> 0 === v) {
    if (v < 0x18) out[p++] = v;
    else if (v < 0x100) (out[p++] = 0x18), (out[p++] = v);
    else if (v < 0x10000) (out[p++] = 0x19), out.writeUInt16BE(v, p), (p += 2);
    else (out[p++] = 0x1a), out.writeUInt32BE(v, p), (p += 4);
  } else if (v >> 0 === v) {
    if (v >= -0x18) out[p++] = 0x1f - v;
    else if (v >= -0x100) (out[p++] = 0x38), (out[p++] = ~v);
    else if (v >= -0x10000) (out[p++] = 0x39), out.writeUInt16BE(~v, p), (p += 2);
    else (out[p++] = 0x3a), out.writeUInt32BE(~v >>> 0, p), (p += 4);
  } else if (v < 0 && v >= -0x100000000 && Math.floor(v) === v) {
    out[p++] = 0x3a;
    out.writeUInt32BE(-1 - v, p);
    p += 4;
  } else {
    out[p++] = 0xfb;
    out.writeDoubleBE(v, p);
    p += 8;
  }
  return p;
}
