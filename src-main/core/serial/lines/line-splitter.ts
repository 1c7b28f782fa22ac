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
  /** Longest line body (without \r\n) accepted; default 64 KiB. */
  maxLineBytes?: number;
  /** Hand the first line to `sink.firstLine` instead of `sink.line`; default true. */
  markFirstLine?: boolean;
}

/**
 * Cuts a byte stream into lines ending in \n or \r\n. Lines that sit wholly inside one chunk are
 * passed as views of that chunk (no copy); only a line cut across chunks is assembled in a carry
 * buffer allocated once, so memory never grows with what the sender does.
 */
export class LineSplitter {
  readonly #max: number;
  readonly #carry: Buffer;
  readonly #markFirst: boolean;
  #carryLen = 0;
  /** Inside an over-long line that was already reported: drop bytes until the next \n. */
  #discarding = false;
  #first: boolean;

  constructor(options: LineSplitterOptions = {}) {
    const max = options.maxLineBytes ?? MAX_LINE_BYTES;
    if (!Number.isInteger(max) || max < 1) {
      throw new CoreError('InvalidArguments', `maxLineBytes must be a positive integer, not ${max}`);
    }
    this.#max = max;
    // One spare byte: a line of exactly `max` bytes may still carry its \r when cut before the \n.
    this.#carry = Buffer.allocUnsafe(max + 1);
    this.#markFirst = options.markFirstLine ?? true;
    this.#first = this.#markFirst;
  }

  push(chunk: Buffer, sink: LineSink): void {
    const len = chunk.length;
    let pos = 0;
    while (pos < len) {
      const nl = chunk.indexOf(LF, pos);
      if (nl < 0) {
        this.#stash(chunk, pos, len, sink);
        return;
      }
      if (this.#discarding) this.#discarding = false; // end of the over-long line: resynchronised
      else if (this.#carryLen > 0) this.#joinCarry(chunk, pos, nl, sink);
      else this.#emit(chunk, pos, nl, sink);
      pos = nl + 1;
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
    this.#first = this.#markFirst;
  }

  #emit(buf: Buffer, start: number, end: number, sink: LineSink): void {
    const e = end > start && buf[end - 1] === CR ? end - 1 : end;
    if (e - start > this.#max) {
      this.#first = false;
      sink.tooLong(buf, start, start + this.#max);
    } else if (this.#first) {
      this.#first = false;
      sink.firstLine(buf, start, e);
    } else {
      sink.line(buf, start, e);
    }
  }

  #joinCarry(chunk: Buffer, pos: number, nl: number, sink: LineSink): void {
    const total = this.#carryLen + (nl - pos);
    if (total > this.#max + 1) {
      // Top the carry up so the report shows the same head wherever the chunks were cut.
      const head = Math.max(0, Math.min(nl - pos, this.#max - this.#carryLen));
      chunk.copy(this.#carry, this.#carryLen, pos, pos + head);
      this.#first = false;
      sink.tooLong(this.#carry, 0, Math.min(this.#max, this.#carryLen + head));
    } else {
      chunk.copy(this.#carry, this.#carryLen, pos, nl);
      this.#emit(this.#carry, 0, total, sink);
    }
    this.#carryLen = 0;
  }

  #stash(chunk: Buffer, pos: number, len: number, sink: LineSink): void {
    if (this.#discarding) return;
    const room = this.#max + 1 - this.#carryLen;
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
