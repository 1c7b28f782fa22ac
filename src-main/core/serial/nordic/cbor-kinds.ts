/**
 * How the board wrote the numbers of a sensor-data message. A decoder such as cbor-x turns the
 * float32 9.0 into the JS number 9, so whether `val` holds float32 or int32 micro-units can only
 * be told from the encoded items: 0xFA (float32) vs major type 0/1 (integers). This walks the
 * envelope `{t, d: {…, val: [...]}}` without decoding it, to the `val` array's items.
 */

export type ValueKind = 'float' | 'int' | 'mixed' | 'none';

const VAL = [0x76, 0x61, 0x6c]; // "val"
const D = 0x64; // "d"

/** Returns the kind of `val`'s items in the CBOR message `buf[start, end)`, or null when it cannot be found. */
export function valueKind(buf: Uint8Array, start: number, end: number): ValueKind | null {
  const w = { buf, pos: start, end };
  const top = header(w);
  if (!top || top.major !== 5) return null;
  for (let n = 0; top.indefinite || n < top.arg; n++) {
    if (top.indefinite && atBreak(w)) return null;
    const isD = isKey(w, [D]);
    if (isD === null) return null;
    if (!isD) {
      if (!skip(w, 0)) return null;
      continue;
    }
    const d = header(w);
    if (!d || d.major !== 5) return null;
    for (let k = 0; d.indefinite || k < d.arg; k++) {
      if (d.indefinite && atBreak(w)) return null;
      const isVal = isKey(w, VAL);
      if (isVal === null) return null;
      if (!isVal) {
        if (!skip(w, 0)) return null;
        continue;
      }
      return arrayKind(w);
    }
    return null;
  }
  return null;
}

interface Walk {
  buf: Uint8Array;
  pos: number;
  end: number;
}

interface Header {
  major: number;
  info: number;
  arg: number;
  indefinite: boolean;
}

function header(w: Walk): Header | null {
  if (w.pos >= w.end) return null;
  const ib = w.buf[w.pos++]!;
  const major = ib >> 5;
  const info = ib & 0x1f;
  if (info < 24) return { major, info, arg: info, indefinite: false };
  if (info === 31) return major >= 2 && major <= 5 ? { major, info, arg: 0, indefinite: true } : major === 7 ? { major, info, arg: 0, indefinite: false } : null;
  const size = info === 24 ? 1 : info === 25 ? 2 : info === 26 ? 4 : info === 27 ? 8 : 0;
  if (size === 0 || w.pos + size > w.end) return null;
  let arg = 0;
  for (let i = 0; i < size; i++) arg = arg * 256 + w.buf[w.pos++]!;
  return { major, info, arg, indefinite: false };
}

function atBreak(w: Walk): boolean {
  if (w.pos < w.end && w.buf[w.pos] === 0xff) {
    w.pos++;
    return true;
  }
  return false;
}

/** Reads a map key; true when it is the text string `want`, false for another key (skipped), null when malformed. */
function isKey(w: Walk, want: number[]): boolean | null {
  const at = w.pos;
  const h = header(w);
  if (!h) return null;
  if (h.major === 3 && !h.indefinite) {
    if (w.pos + h.arg > w.end) return null;
    const match = h.arg === want.length && want.every((b, i) => w.buf[w.pos + i] === b);
    w.pos += h.arg;
    return match;
  }
  w.pos = at;
  return skip(w, 0) ? false : null;
}

/** Skips one item (nested up to a sane depth); false when malformed. */
function skip(w: Walk, depth: number): boolean {
  if (depth > 16) return false;
  const h = header(w);
  if (!h) return false;
  switch (h.major) {
    case 0:
    case 1:
    case 7:
      return w.pos <= w.end;
    case 2:
    case 3:
      if (h.indefinite) {
        while (!atBreak(w)) if (w.pos >= w.end || !skip(w, depth + 1)) return false;
        return true;
      }
      w.pos += h.arg;
      return w.pos <= w.end;
    case 4:
    case 5: {
      const per = h.major === 5 ? 2 : 1;
      if (h.indefinite) {
        while (!atBreak(w)) if (w.pos >= w.end || !skip(w, depth + 1)) return false;
        return true;
      }
      for (let i = 0; i < h.arg * per; i++) if (!skip(w, depth + 1)) return false;
      return true;
    }
    case 6:
      return skip(w, depth + 1);
    default:
      return false;
  }
}

function arrayKind(w: Walk): ValueKind | null {
  const h = header(w);
  if (!h || h.major !== 4) return null;
  let floats = 0;
  let ints = 0;
  for (let i = 0; h.indefinite || i < h.arg; i++) {
    if (h.indefinite && atBreak(w)) break;
    if (w.pos >= w.end) return null;
    const ib = w.buf[w.pos]!;
    const major = ib >> 5;
    if (major === 0 || major === 1) ints++;
    else if (ib === 0xfa || ib === 0xfb || ib === 0xf9) floats++;
    if (!skip(w, 1)) return null;
  }
  return floats && ints ? 'mixed' : floats ? 'float' : ints ? 'int' : 'none';
}
