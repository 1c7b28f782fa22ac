// What a misbehaving board prints, made from a seed: good numeric lines mixed with debug text,
// NaN readings, lines of the wrong width, random binary, NUL runs, over-long lines without a line
// ending, blank lines, and every kind of line ending (\n, \r\n, a lone \r). Shared by the framing
// unit test and the PTY fuzz board, so both check the reader against the same stream.
//
// Each piece is one whole line with its ending, and the generator knows what the reader must make
// of it. Garbage is always ended by a line ending and never contains \r or \n, so a bad piece can
// never join with the next good line into something that parses: every good line the board sends
// must come out as exactly one row. (A board whose garbage runs into its next reading does lose that
// reading; the reader cannot tell it apart, so the fuzz does not pretend to test that.)
//
// Good line k is `k,<a>,<b>`: its first value is its index among the good lines, so a recording
// shows exactly which readings it holds.

import { prng } from '../seeded-random.mjs';

/** Piece kinds; every one but 'good' and 'blank' is a line the reader must reject for `REASON[kind]`. */
export const KINDS = ['good', 'blank', 'text', 'nan', 'width', 'garbage', 'nul', 'too-long'];
export const REASON = { text: 'text', nan: 'nan', width: 'width', garbage: 'garbage', nul: 'garbage', 'too-long': 'too-long' };

/** Share of pieces per kind (too-long is given per piece separately: each one is ≥ 64 KiB). */
const MIX = [['good', 0.8], ['blank', 0.03], ['text', 0.035], ['nan', 0.035], ['width', 0.035], ['garbage', 0.04], ['nul', 0.025]];
const ENDINGS = ['\n', '\r\n', '\r'];
const SEPARATORS = [',', ', ', ' ', '\t', ' ,'];
const WORDS = ['temp', 'Sensor', 'status', 'température', 'loop', 'IMU', 'heap'];

export class FuzzLines {
  /**
   * @param {number} seed
   * @param {{ maxLineBytes?: number, longChance?: number }} [o] maxLineBytes must be the reader's
   *   limit (64 KiB by default; at least 128, so every other piece fits under it); longChance is
   *   the chance a piece is an over-long line.
   */
  constructor(seed, o = {}) {
    this.seed = seed;
    this.rnd = prng(seed);
    this.maxLineBytes = o.maxLineBytes ?? 64 * 1024;
    if (this.maxLineBytes < 128) throw new Error('maxLineBytes must be at least 128: the longest ordinary piece must fit');
    this.longChance = o.longChance ?? 1 / 20000;
    /** Pieces made so far, by kind. */
    this.counts = Object.fromEntries(KINDS.map((k) => [k, 0]));
    this.goodRows = 0;
    this.bytes = 0;
    this.endedInCr = false;
  }

  /** The next good line only (a clean stretch, e.g. while the reader settles the width). */
  good() {
    return this.#piece('good');
  }

  /** The next piece, any kind: { kind, text (the line without its ending), bytes, row? }. */
  next() {
    if (this.rnd() < this.longChance) return this.#piece('too-long');
    let r = this.rnd();
    for (const [kind, share] of MIX) {
      if (r < share) return this.#piece(kind);
      r -= share;
    }
    return this.#piece('good');
  }

  /** What the reader must report for the pieces made so far: rows, blank lines, rejections by reason. */
  expected() {
    const c = this.counts;
    return {
      rows: this.goodRows,
      blank: c.blank,
      bad: { text: c.text, nan: c.nan, width: c.width, garbage: c.garbage + c.nul, 'too-long': c['too-long'] },
    };
  }

  #piece(kind) {
    const body = this.#body(kind);
    let eol = ENDINGS[Math.floor(this.rnd() * ENDINGS.length)];
    // "\r" then "\n" would read as one \r\n ending and swallow this blank line.
    if (this.endedInCr && body.length === 0 && eol === '\n') eol = '\r\n';
    const bytes = Buffer.concat([typeof body === 'string' ? Buffer.from(body, 'utf8') : body, Buffer.from(eol, 'latin1')]);
    this.endedInCr = eol === '\r';
    this.counts[kind]++;
    this.bytes += bytes.length;
    const piece = { kind, bytes };
    if (kind === 'good') piece.row = this.lastRow;
    return piece;
  }

  #body(kind) {
    const rnd = this.rnd;
    const int = (n) => Math.floor(rnd() * n);
    // Up to 4 decimals; `+ 0` turns -0 into 0, which is what the text "0" reads back as.
    const num = () => ((int(2) ? -1 : 1) * int(1_000_000)) / 10 ** int(5) + 0;
    const sep = () => SEPARATORS[int(SEPARATORS.length)];
    switch (kind) {
      case 'good': {
        const row = [this.goodRows++, num(), num()];
        this.lastRow = row;
        return (int(10) === 0 ? ' ' : '') + row.join(sep()) + (int(10) === 0 ? sep() : '');
      }
      case 'blank':
        return ' '.repeat(int(3));
      case 'text': {
        const w = WORDS[int(WORDS.length)];
        return [`${w} ${num()}`, `${w}: ${int(100)} ok`, `${num()}.${int(9)}.1,2,3`, `${int(99)}abc,1,2`, `:${w} 1`][int(5)];
      }
      case 'nan': {
        const v = ['nan', 'NaN', '-inf', 'inf', 'ovf', '1e999', ''][int(7)];
        const row = [num(), num(), num()].map(String);
        // An empty last field would be a trailing separator (a good line one value short), not a NaN.
        row[v === '' ? int(2) : int(3)] = v;
        return row.join(',');
      }
      case 'width': {
        const n = [1, 2, 4, 5, 8][int(5)];
        return Array.from({ length: n }, num).join(sep());
      }
      case 'garbage': {
        // Random bytes with at least one control byte, so no rule can take it for text or numbers.
        const b = Buffer.alloc(1 + int(120));
        for (let i = 0; i < b.length; i++) b[i] = int(256);
        b[int(b.length)] = [0x00, 0x01, 0x07, 0x1b, 0x7f][int(5)];
        return noEndings(b);
      }
      case 'nul':
        // A reset or a brown-out: a run of NULs, alone or in the middle of a reading.
        return int(2) ? Buffer.alloc(1 + int(64)) : Buffer.from(`${num()},${num()}\0,${num()}`, 'latin1');
      case 'too-long': {
        // A sketch printing without println: numbers and commas, no line ending for ages.
        const len = this.maxLineBytes + 1 + int(this.maxLineBytes * 1.5);
        const unit = Buffer.from(`${num()},`);
        const b = Buffer.alloc(len);
        for (let i = 0; i < len; i += unit.length) unit.copy(b, i);
        return b;
      }
    }
    throw new Error(`unknown piece kind ${kind}`);
  }
}

/** Swap \r and \n for other bytes: a piece's only line ending is the one it is given. */
function noEndings(b) {
  for (let i = 0; i < b.length; i++) if (b[i] === 0x0a || b[i] === 0x0d) b[i] = 0x0b;
  return b;
}
