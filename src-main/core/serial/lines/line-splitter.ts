import { CoreError } from '../../errors.js';

/** Longest line we hold. A numeric reading is a few hundred bytes; 64 KiB means the sender is not printing lines. */
export const MAX_LINE_BYTES = 64 * 1024;

const LF = 0x0a;
const CR = 0x0d;

/**
 * Receives lines as views: `buf[start, end)` without the terminator. The bytes are only valid
 * during the call (they may be the chunk or the splitter's carry buffer), so copy what you keep.
 * One object with four methods rather than callbacks, so the hot call stays monomorphic.
 */
export interface LineSink {
  /** A complete line. */
  line(buf: Buffer, start: number, end: number): void;
  /** The first line after (re)opening: the board may have been mid-line when we connected. */
  firstLine(buf: Buffer, start: number, end: number): void;
  /** A line over the limit, reported once; the view holds its first bytes only. */
  tooLong(buf: Buffer, start: number, end: number): void;
  /** Bytes left without a terminator when the stream ended. */
  unterminated(buf: Buffer, start: number, end: number): void;
}

export interface LineSplitterOptions {
  /** Longest line body (without its ending) accepted; default 64 KiB. */
  maxLineBytes?: number;
  /** Hand the first line to `sink.firstLine` instead of `sink.line`; default true. */
  markFirstLine?: boolean;
}

/**
 * Cuts a byte stream into lines ending in \n, \r\n or a lone \r (some sketches end lines with
 * '\r' alone, and a stray \r must not spoil the reading after it). \r\n is one ending even when
 * a chunk ends between the two bytes. Lines that sit wholly inside one chunk are passed as views of
 * that chunk (no copy); only a line cut across chunks is assembled in a carry buffer allocated
 * once, so memory never grows with what the sender does.
 */
export class LineSplitter {
  readonly #max: number;
  readonly #carry: Buffer;
  readonly #markFirst: boolean;
  #carryLen = 0;
  /** Inside an over-long line that was already reported: drop bytes until the next line ending. */
  #discarding = false;
  /** The previous chunk ended in \r: a \n starting this one belongs to that ending. */
  #afterCr = false;
  #first: boolean;

  constructor(options: LineSplitterOptions = {}) {
    const max = options.maxLineBytes ?? MAX_LINE_BYTES;
    if (!Number.isInteger(max) || max < 1) {
      throw new CoreError('InvalidArguments', `maxLineBytes must be a positive integer, not ${max}`);
    }
    this.#max = max;
    this.#carry = Buffer.allocUnsafe(max);
    this.#markFirst = options.markFirstLine ?? true;
    this.#first = this.#markFirst;
  }

  push(chunk: Buffer, sink: LineSink): void {
    const len = chunk.length;
    if (len === 0) return;
    let pos = 0;
    if (this.#afterCr) {
      this.#afterCr = false;
      if (chunk[0] === LF) pos = 1;
    }
    // Next \n and \r at or after pos; -1 once none is left. Each is searched again only when
    // passed, so a stream with only one kind of ending costs one search per line, not per byte.
    let lf = -2;
    let cr = -2;
    while (pos < len) {
      if (lf !== -1 && lf < pos) lf = chunk.indexOf(LF, pos);
      if (cr !== -1 && cr < pos) cr = chunk.indexOf(CR, pos);
      const end = cr >= 0 && (lf < 0 || cr < lf) ? cr : lf;
      if (end < 0) {
        this.#stash(chunk, pos, len, sink);
        return;
      }
      if (this.#discarding) this.#discarding = false; // end of the over-long line: resynchronised
      else if (this.#carryLen > 0) this.#joinCarry(chunk, pos, end, sink);
      else this.#emit(chunk, pos, end, sink);
      pos = end + 1;
      if (end === cr) {
        if (pos === len) this.#afterCr = true;
        else if (chunk[pos] === LF) pos++;
      }
    }
  }

  /** The stream ended: report an unterminated tail, then start over as if newly opened. */
  finish(sink: LineSink): void {
    if (!this.#discarding && this.#carryLen > 0) sink.unterminated(this.#carry, 0, this.#carryLen);
    this.reset();
  }

  /** Forget any partial line and treat the next line as the first again (port reopened). */
  reset(): void {
    this.#carryLen = 0;
    this.#discarding = false;
    this.#afterCr = false;
    this.#first = this.#markFirst;
  }

  #emit(buf: Buffer, start: number, end: number, sink: LineSink): void {
    if (end - start > this.#max) {
      this.#first = false;
      sink.tooLong(buf, start, start + this.#max);
    } else if (this.#first) {
      this.#first = false;
      sink.firstLine(buf, start, end);
    } else {
      sink.line(buf, start, end);
    }
  }

  #joinCarry(chunk: Buffer, pos: number, end: number, sink: LineSink): void {
    const total = this.#carryLen + (end - pos);
    if (total > this.#max) {
      // Top the carry up so the report shows the same head wherever the chunks were cut.
      chunk.copy(this.#carry, this.#carryLen, pos, pos + (this.#max - this.#carryLen));
      this.#first = false;
      sink.tooLong(this.#carry, 0, this.#max);
    } else {
      chunk.copy(this.#carry, this.#carryLen, pos, end);
      this.#emit(this.#carry, 0, total, sink);
    }
    this.#carryLen = 0;
  }

  #stash(chunk: Buffer, pos: number, len: number, sink: LineSink): void {
    if (this.#discarding) return;
    const room = this.#max - this.#carryLen;
    if (len - pos <= room) {
      chunk.copy(this.#carry, this.#carryLen, pos, len);
      this.#carryLen += len - pos;
      return;
    }
    // Over the limit before its end arrived: fill the carry so the report shows the line's head,
    // report it now, and drop the rest as it comes.
    chunk.copy(this.#carry, this.#carryLen, pos, pos + room);
    this.#first = false;
    sink.tooLong(this.#carry, 0, this.#max);
    this.#carryLen = 0;
    this.#discarding = true;
  }
}
