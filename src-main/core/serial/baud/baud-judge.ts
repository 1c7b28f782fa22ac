import { LineScanner } from '../lines/line-scanner.js';
import { NordicFrameReader } from '../nordic/frame-reader.js';

/** What a board speaks, as far as telling its baud rate goes. */
export type BaudProtocol = 'lines' | 'at' | 'nordic';

/**
 * data: the board's own output (whole numeric lines of one width, an AT prompt, Nordic frames that
 * check); garbage: bytes no board prints, what a UART reads at another rate; text: clean text but
 * no data yet (a header, a boot message, a partial line); silent: nothing.
 */
export type BaudVerdict = { verdict: 'data'; protocol: BaudProtocol } | { verdict: 'garbage' | 'text' | 'silent' };

/** Consecutive whole numeric lines of one width that make a rate right. */
export const LINES_NEEDED = 4;
/** Bytes no text holds (NUL, other control characters, high-bit bytes) that make a rate wrong... */
const JUNK_MIN = 6;
/** ...when they are at least this share of what was read (a "°C" in a header is not garbage). */
const JUNK_SHARE = 0.1;
/** A line longer than this is not a reading. */
const MAX_LINE = 512;

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const ESC = 0x1b; // AT firmware draws its prompt with ANSI escapes

/**
 * Judges what one baud rate read. Not "printable": garbage at a wrong rate holds digits, commas
 * and newlines now and then, and a Nordic board's right rate is all binary. A rate is right when
 * it reads LINES_NEEDED whole numeric lines of one width in a row with nothing a board would not
 * print among them (the line the read began in is cut, so it never counts), an AT prompt after
 * being asked, or Nordic frames whose CRC-16 checks (three decoded frames without CRC). Framing
 * errors arrive as NULs (or not at all under IGNPAR, which serialport sets: a wrong rate may read
 * nothing); at a wrong rate most of what arrives has the high bit set or is a control byte.
 */
export class BaudJudge {
  #bytes = 0;
  #junk = 0;
  #zeros = 0;
  readonly #line = Buffer.alloc(MAX_LINE);
  #lineLen = 0;
  #lineJunk = false;
  #overlong = false;
  /** The first line is cut by opening (or switching) mid-line. */
  #seenNewline = false;
  /** The last byte was a \r: a \n now ends the same line (\r\n is one ending). */
  #afterCr = false;
  #run = 0;
  #runWidth = -1;
  #runKind = '';
  #text = 0;
  #at = false;
  #asked = false;
  #sinceAsk = '';
  readonly #scanner = new LineScanner(128);
  readonly #frames = new NordicFrameReader(() => undefined);

  get bytes(): number {
    return this.#bytes;
  }

  get junk(): number {
    return this.#junk;
  }

  /**
   * A slow board (a line every second or so) cannot show LINES_NEEDED lines in a rate's time: at
   * its end, whole numeric lines with not one byte of garbage anywhere are enough.
   */
  cleanLines(): boolean {
    return this.#junk === 0 && this.#run >= 1;
  }

  /** The prober sent an AT command: a prompt in what follows is an answer. */
  asked(): void {
    this.#asked = true;
    this.#sinceAsk = '';
  }

  push(chunk: Uint8Array): void {
    this.#bytes += chunk.length;
    this.#frames.push(chunk);
    for (const b of chunk) {
      const junk = b === 0 || b >= 0x80 || (b < 0x20 && b !== TAB && b !== LF && b !== CR && b !== ESC) || b === 0x7f;
      if (junk) this.#junk++;
      if (b === 0) this.#zeros++;
      if (this.#asked && !this.#at) this.#atByte(b, junk);
      // Lines end in \n, \r\n or a lone \r, as the reader splits them: a sketch ending its lines
      // in \r alone was read as one long line at its right rate, found only at the search's end.
      if (b === LF || b === CR) {
        if (!(b === LF && this.#afterCr)) this.#endLine();
        this.#afterCr = b === CR;
        continue;
      }
      this.#afterCr = false;
      if (junk) this.#lineJunk = true;
      if (this.#lineLen < MAX_LINE) this.#line[this.#lineLen++] = b;
      else this.#overlong = true;
    }
  }

  /**
   * What was read says so far. `final`: the rate's time is up, so junk is judged on what there is
   * (a Nordic board's right rate is binary until its first frames end: junk alone proves nothing early).
   */
  verdict(final = false): BaudVerdict {
    const f = this.#frames.stats;
    if (f.withCrc >= 2 || f.frames >= 3) return { verdict: 'data', protocol: 'nordic' };
    if (this.#at) return { verdict: 'data', protocol: 'at' };
    if (this.#run >= LINES_NEEDED) return { verdict: 'data', protocol: 'lines' };
    const junky = this.#junk >= JUNK_MIN && this.#junk >= this.#bytes * JUNK_SHARE;
    // Early: frames that fail (a Nordic board at its rate loses only the first, cut one), or a
    // stream without a single 0x00 long past any Nordic frame of a few channels.
    if (junky && f.frames === 0 && (final || f.badTotal >= 2 || (this.#zeros === 0 && this.#bytes >= 256))) return { verdict: 'garbage' };
    if (final && this.#junk > 0 && f.frames === 0 && this.#run === 0 && this.#text === 0) return { verdict: 'garbage' };
    if (this.#bytes === 0) return { verdict: 'silent' };
    return { verdict: 'text' };
  }

  #endLine(): void {
    const len = this.#lineLen;
    const cut = !this.#seenNewline;
    const bad = this.#lineJunk || this.#overlong;
    this.#seenNewline = true;
    this.#lineLen = 0;
    this.#lineJunk = false;
    this.#overlong = false;
    if (cut) return;
    if (bad) return this.#breakRun();
    const kind = this.#scanner.scan(this.#line, 0, len);
    if (kind === 'values' || kind === 'pairs') {
      const width = this.#scanner.count;
      if (kind === this.#runKind && width === this.#runWidth) this.#run++;
      else {
        this.#runKind = kind;
        this.#runWidth = width;
        this.#run = 1;
      }
    } else if (kind === 'blank') {
      // An empty line between readings (\r\n\r\n) is neither data nor harm.
    } else if (kind === 'text' || kind === 'names') {
      // A header or a debug print between readings: clean, but not data.
      this.#text++;
    } else this.#breakRun();
  }

  #breakRun(): void {
    this.#run = 0;
    this.#runWidth = -1;
    this.#runKind = '';
  }

  /** The AT firmware echoes the command, prints its answer and then its prompt "> ", all clean text. */
  #atByte(b: number, junk: boolean): void {
    if (junk) {
      this.#sinceAsk = '';
      return;
    }
    this.#sinceAsk = (this.#sinceAsk + String.fromCharCode(b)).slice(-64);
    if (/(^|[\r\n])> $/.test(this.#sinceAsk)) this.#at = true;
  }
}
