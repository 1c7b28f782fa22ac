import { isUtf8 } from 'node:buffer';

const TAB = 0x09;
const SPACE = 0x20;
const PLUS = 0x2b;
const COMMA = 0x2c;
const MINUS = 0x2d;
const DOT = 0x2e;
const COLON = 0x3a;
const EQUALS = 0x3d;

/** What one line holds. The last four are reasons to reject it. */
export type ScanKind = 'values' | 'pairs' | 'names' | 'blank' | 'text' | 'nan' | 'garbage' | 'width';

/** Exact powers of ten: with a mantissa below 2^53 one multiply or divide rounds correctly (Clinger's fast path). */
const POW10 = Float64Array.from({ length: 23 }, (_, i) => 10 ** i);

/**
 * Reads one line's fields straight from the bytes: numbers (`1.5,-2 3e-4`), `name:value` (or
 * `name=value`) pairs, or
 * a header of names. No strings, regexes or allocations on the numeric path; names are left as
 * byte spans for the caller to compare or decode.
 */
export class LineScanner {
  readonly values: Float64Array;
  /** For 'pairs' and 'names': where each field's name sits in the line's buffer. */
  readonly nameStart: Int32Array;
  readonly nameEnd: Int32Array;
  count = 0;
  #num = 0;

  constructor(readonly maxFields: number) {
    this.values = new Float64Array(maxFields);
    this.nameStart = new Int32Array(maxFields);
    this.nameEnd = new Int32Array(maxFields);
  }

  scan(buf: Buffer, start: number, end: number): ScanKind {
    this.count = 0;
    let i = start;
    while (i < end && buf[i] === SPACE) i++;
    if (i === end) return 'blank';
    let kind: ScanKind | null = null;
    let count = 0;
    let high = false;
    for (;;) {
      const c = buf[i]!;
      if (c === COMMA || c === TAB) return this.#bad(buf, start, end, 'nan'); // an empty field: a value is missing
      if (count === this.maxFields) return this.#bad(buf, start, end, 'width');
      let j = this.#number(buf, i, end);
      if (j >= 0) {
        if (kind !== 'values' && kind !== null) return this.#bad(buf, start, end, 'text');
        kind = 'values';
        this.values[count++] = this.#num;
      } else if (j === -2) {
        return this.#bad(buf, start, end, 'nan');
      } else {
        // Slow path: a name, a name:value pair, a NaN spelling, or junk.
        let colon = -1;
        for (j = i; j < end; j++) {
          const b = buf[j]!;
          if (b === SPACE || b === COMMA || b === TAB) break;
          // "accX:1.2" (the Arduino plotter's pairs) or "accX=1.2" (a printf's): the same pair.
          if (b === COLON || b === EQUALS) { if (colon < 0) colon = j; }
          else if (b < 0x20 || b === 0x7f) return this.#bad(buf, start, end, 'garbage');
          else if (b >= 0x80) high = true;
        }
        if (colon >= 0) {
          if (kind !== 'pairs' && kind !== null) return this.#bad(buf, start, end, 'text');
          if (colon === i) return this.#bad(buf, start, end, 'text');
          kind = 'pairs';
          let v = colon + 1;
          if (v === j) while (v < end && buf[v] === SPACE) v++; // "accX: 1.2"
          if (v === end || buf[v] === COMMA || buf[v] === TAB) return this.#bad(buf, start, end, 'nan');
          const after = this.#number(buf, v, end);
          if (after < 0) return this.#bad(buf, start, end, after === -2 || isNanWord(buf, v, tokenEnd(buf, v, end)) ? 'nan' : 'text');
          this.nameStart[count] = i;
          this.nameEnd[count] = colon;
          this.values[count++] = this.#num;
          j = after;
        } else if (isNanWord(buf, i, j)) {
          return this.#bad(buf, start, end, 'nan');
        } else {
          // A malformed number ("1.2.3", "12abc") is text, not a column name.
          if ((kind !== 'names' && kind !== null) || startsLikeNumber(c)) return this.#bad(buf, start, end, 'text');
          kind = 'names';
          this.nameStart[count] = i;
          this.nameEnd[count++] = j;
        }
      }
      // Separators: runs of spaces, with at most one comma or tab among them.
      let hard = false;
      for (; j < end; j++) {
        const b = buf[j]!;
        if (b === SPACE) continue;
        if (b !== COMMA && b !== TAB) break;
        if (hard) return this.#bad(buf, start, end, 'nan');
        hard = true;
      }
      if (j === end) break; // a trailing separator is fine
      i = j;
    }
    this.count = count;
    if (high && !isUtf8(buf.subarray(start, end))) return 'garbage';
    return kind!;
  }

  /**
   * Parses a number that fills the token at `i`. Returns the index after it (value in #num), -1 if
   * the token is not a number, -2 if it is one but not finite (1e999).
   */
  #number(buf: Buffer, i: number, end: number): number {
    let j = i;
    let c = buf[j]!;
    const neg = c === MINUS;
    if (neg || c === PLUS) j++;
    let mant = 0;
    let digits = 0; // significant digits so far; past 15 the mantissa is no longer exact
    let frac = 0;
    let any = false;
    for (; j < end; j++) {
      const d = buf[j]! - 48;
      if (d < 0 || d > 9) break;
      mant = mant * 10 + d;
      any = true;
      if (mant !== 0) digits++;
    }
    if (j < end && buf[j] === DOT) {
      for (j++; j < end; j++) {
        const d = buf[j]! - 48;
        if (d < 0 || d > 9) break;
        mant = mant * 10 + d;
        frac++;
        any = true;
        if (mant !== 0) digits++;
      }
    }
    if (!any) return -1;
    let exp = 0;
    if (j < end && (buf[j]! | 0x20) === 0x65) {
      let k = j + 1;
      const eneg = buf[k] === MINUS;
      if (eneg || buf[k] === PLUS) k++;
      const first = k;
      for (; k < end; k++) {
        const d = buf[k]! - 48;
        if (d < 0 || d > 9) break;
        if (exp < 100000) exp = exp * 10 + d;
      }
      if (k === first) return -1;
      if (eneg) exp = -exp;
      j = k;
    }
    if (j < end) {
      c = buf[j]!;
      if (c !== SPACE && c !== COMMA && c !== TAB) return -1;
    }
    const e10 = exp - frac;
    let v: number;
    if (digits <= 15 && e10 >= -22 && e10 <= 22) {
      v = e10 >= 0 ? mant * POW10[e10]! : mant / POW10[-e10]!;
      if (neg) v = -v;
    } else {
      v = Number(buf.toString('latin1', i, j)); // rare: long mantissas or big exponents
      if (!Number.isFinite(v)) return -2;
    }
    this.#num = v;
    return j;
  }

  /** A rejected line is garbage if it holds control bytes or invalid UTF-8 anywhere, whatever else failed. */
  #bad(buf: Buffer, start: number, end: number, reason: ScanKind): ScanKind {
    this.count = 0;
    let high = false;
    for (let k = start; k < end; k++) {
      const b = buf[k]!;
      if ((b < 0x20 && b !== TAB) || b === 0x7f) return 'garbage';
      if (b >= 0x80) high = true;
    }
    return high && !isUtf8(buf.subarray(start, end)) ? 'garbage' : reason;
  }
}

function startsLikeNumber(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === MINUS || c === PLUS || c === DOT;
}

function tokenEnd(buf: Buffer, i: number, end: number): number {
  while (i < end && buf[i] !== SPACE && buf[i] !== COMMA && buf[i] !== TAB) i++;
  return i;
}

/** nan, inf, infinity and Arduino's ovf, any case, optionally signed. */
function isNanWord(buf: Buffer, i: number, end: number): boolean {
  if (i < end && (buf[i] === MINUS || buf[i] === PLUS)) i++;
  const len = end - i;
  if (len !== 3 && len !== 8) return false;
  let word = '';
  for (let k = i; k < end; k++) word += String.fromCharCode(buf[k]! | 0x20);
  return word === 'nan' || word === 'inf' || word === 'ovf' || word === 'infinity';
}
