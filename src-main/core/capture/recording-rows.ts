/** Reading back the rows file a SensorRecorder streams (CBOR arrays, as encodeRows writes them). */

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
