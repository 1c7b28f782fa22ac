/**
 * Consistent Overhead Byte Stuffing, as Nordic's data forwarder frames its messages (Zephyr's
 * `cobs_encode` with a trailing delimiter): code bytes 0x01–0xFF, blocks of at most 254 data
 * bytes, no 0x00 inside a frame. The host splits the stream on 0x00 and decodes each chunk.
 */

/**
 * Decodes `src[start, end)` (one frame without its 0x00 delimiter) into `out` from index 0.
 * Returns the decoded length, or -1 when the bytes are not valid COBS (a zero byte, a code
 * running past the end) or do not fit in `out`.
 */
export function cobsDecode(src: Uint8Array, start: number, end: number, out: Uint8Array): number {
  let i = start;
  let o = 0;
  while (i < end) {
    const code = src[i++]!;
    if (code === 0) return -1;
    const blockEnd = i + code - 1;
    if (blockEnd > end) return -1;
    if (o + (code - 1) > out.length) return -1;
    while (i < blockEnd) {
      const b = src[i++]!;
      if (b === 0) return -1;
      out[o++] = b;
    }
    // A code below 0xFF stands for a zero after its block, except at the frame's very end.
    if (code !== 0xff && i < end) {
      if (o >= out.length) return -1;
      out[o++] = 0;
    }
  }
  return o;
}

/** Encodes `data` as one COBS frame followed by the 0x00 delimiter (what the board sends). */
export function cobsEncode(data: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(data.length + Math.ceil(data.length / 254) + 2);
  let codeAt = 0;
  let o = 1;
  let code = 1;
  for (let i = 0; i < data.length; i++) {
    const b = data[i]!;
    if (b === 0) {
      out[codeAt] = code;
      codeAt = o++;
      code = 1;
      continue;
    }
    out[o++] = b;
    if (++code === 0xff) {
      // A full block: its code says "no zero follows"; a new block starts only if data does.
      out[codeAt] = code;
      code = 1;
      codeAt = i + 1 < data.length ? o++ : -1;
    }
  }
  if (codeAt >= 0) out[codeAt] = code;
  out[o++] = 0;
  return out.subarray(0, o);
}
