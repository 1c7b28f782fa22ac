/** Reading back the rows file a SensorRecorder streams (CBOR arrays, as encodeRows writes them). */
import { open } from 'node:fs/promises';

/**
 * Whole rows at the start of `buf` (CBOR arrays of `width` numbers, as encodeRows writes them)
 * and the bytes they take; stops at the first row that is cut short or not a row, or after `most`.
 */
export function completeRows(buf: Uint8Array, width: number, most = Infinity): { rows: number; bytes: number } {
  let p = 0;
  let rows = 0;
  const end = buf.length;
  for (;;) {
    if (rows >= most) return { rows, bytes: p };
    const start = p;
    const head = arrayHead(buf, p);
    if (!head || head.n !== width) return { rows, bytes: start };
    p = head.next;
    let ok = true;
    for (let a = 0; a < width && ok; a++) {
      const size = numberSize(buf[p]);
      if (size === 0 || p + size > end) ok = false;
      else p += size;
    }
    if (!ok) return { rows, bytes: start };
    rows++;
  }
}

function arrayHead(b: Uint8Array, p: number): { n: number; next: number } | null {
  if (p >= b.length) return null;
  const ib = b[p]!;
  if (ib >= 0x80 && ib < 0x98) return { n: ib - 0x80, next: p + 1 };
  if (ib === 0x98 && p + 2 <= b.length) return { n: b[p + 1]!, next: p + 2 };
  if (ib === 0x99 && p + 3 <= b.length) return { n: (b[p + 1]! << 8) | b[p + 2]!, next: p + 3 };
  return null;
}

/** Bytes of one number as encodeRows writes it (integers up to 32 bits, float64); 0 = not one. */
function numberSize(ib: number | undefined): number {
  if (ib === undefined) return 0;
  if (ib < 0x18 || (ib >= 0x20 && ib < 0x38)) return 1;
  if (ib === 0x18 || ib === 0x38) return 2;
  if (ib === 0x19 || ib === 0x39) return 3;
  if (ib === 0x1a || ib === 0x3a) return 5;
  if (ib === 0xfb) return 9;
  return 0;
}

/** The most bytes one row takes as encodeRows writes it: a 3-byte array head and a float64 per number. */
export const maxRowBytes = (width: number): number => 3 + 9 * width;

/**
 * completeRows over the file at `path` from byte `from`, read a chunk at a time: a rows file is
 * as long as its take (an hour of a board at 10 kHz is about a gigabyte), and reading it whole at
 * a take's end or at a recovery would hold all of it in memory. `bytes` counts from `from`.
 */
export async function completeRowsIn(path: string, width: number, o: { from?: number; most?: number; chunkBytes?: number } = {}): Promise<{ rows: number; bytes: number }> {
  const from = o.from ?? 0;
  const most = o.most ?? Infinity;
  const fh = await open(path, 'r');
  try {
    // At least two rows' worth, so a row cut by a chunk's end is always whole in the next.
    const buf = Buffer.alloc(Math.max(o.chunkBytes ?? 1 << 20, 2 * maxRowBytes(width)));
    let pos = from; // the file's byte at buf[0]
    let carry = 0; // bytes at buf's start left from the last chunk: a row it cut
    let rows = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, carry, buf.length - carry, pos + carry);
      const len = carry + bytesRead;
      const got = completeRows(buf.subarray(0, len), width, most - rows);
      rows += got.rows;
      const rest = len - got.bytes;
      // Done: as many as asked, the file's end, or what is left is no row (longer than any row yet not one).
      if (rows >= most || bytesRead === 0 || rest >= maxRowBytes(width)) return { rows, bytes: pos + got.bytes - from };
      buf.copy(buf, 0, got.bytes, len);
      pos += got.bytes;
      carry = rest;
    }
  } finally {
    await fh.close();
  }
}
