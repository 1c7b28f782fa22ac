import { CoreError } from '../../errors.js';
import { BadLineLog, type BadLineReason, type BadLineSample } from './bad-lines.js';
import { HeldRows } from './held-rows.js';
import { LineScanner } from './line-scanner.js';
import type { Layout, RowSink } from './row-sink.js';

export type { Layout, RowSink } from './row-sink.js';

/** 'held': a good row kept back until the width is settled; it reaches the sink later or is rejected. */
export type LineOutcome = 'row' | 'held' | 'header' | 'blank' | BadLineReason;

export interface NumericLineParserOptions {
  /** Consecutive lines of one shape that settle the width; default 3. */
  confirmLines?: number;
  /** Most values a line may hold; default 128. */
  maxAxes?: number;
}

export interface ParserStats {
  goodLines: number;
  headerLines: number;
  blankLines: number;
  badLines: Record<BadLineReason, number>;
  badTotal: number;
  lastBadLine: BadLineSample | null;
  width: number | null;
  layout: Layout | null;
  names: readonly string[] | null;
}

interface PendingHeader {
  names: string[];
  raw: Buffer;
  /** From the first line after opening: if the data disagrees it was probably cut, so 'partial'. */
  fromFirstLine: boolean;
}

/**
 * Turns lines into rows of one fixed width. The width is settled by the first `confirmLines`
 * consistent lines (or one line that matches a header), because the first lines after a connect
 * are the likeliest to be damaged; from then on any other shape is a 'width' rejection.
 */
export class NumericLineParser {
  readonly #scan: LineScanner;
  readonly #confirm: number;
  readonly #max: number;
  readonly #bad = new BadLineLog();
  readonly #held: HeldRows;
  readonly #row: Float64Array;
  #width: number | null = null;
  #layout: Layout | null = null;
  #names: string[] | null = null;
  #nameBytes: Buffer[] = [];
  #pending: PendingHeader | null = null;
  #good = 0;
  #headers = 0;
  #blank = 0;

  constructor(options: NumericLineParserOptions = {}) {
    this.#confirm = positiveInt(options.confirmLines ?? 3, 'confirmLines');
    this.#max = positiveInt(options.maxAxes ?? 128, 'maxAxes');
    this.#scan = new LineScanner(this.#max);
    this.#held = new HeldRows(this.#confirm, this.#max);
    this.#row = new Float64Array(this.#max);
  }

  get width(): number | null {
    return this.#width;
  }

  parse(buf: Buffer, start: number, end: number, sink: RowSink): LineOutcome {
    const kind = this.#scan.scan(buf, start, end);
    if (kind === 'values') {
      const n = this.#scan.count;
      if (this.#width === n && this.#layout === 'values') {
        this.#good++;
        sink.row(this.#scan.values, n);
        return 'row';
      }
      return this.#values(buf, start, end, sink);
    }
    if (kind === 'pairs') return this.#pairs(buf, start, end, sink);
    if (kind === 'names') return this.#header(buf, start, end, sink, false);
    if (kind === 'blank') {
      this.#blank++;
      return 'blank';
    }
    return this.reject(kind, buf, start, end, sink);
  }

  /** The first line after opening may be the tail of a line: only a header is believed. */
  firstLine(buf: Buffer, start: number, end: number, sink: RowSink): LineOutcome {
    const kind = this.#scan.scan(buf, start, end);
    if (kind === 'blank') {
      this.#blank++;
      return 'blank';
    }
    if (kind === 'names' && this.#width === null && this.#held.count === 0) return this.#header(buf, start, end, sink, true);
    return this.reject('partial', buf, start, end, sink);
  }

  /** Counts a line rejected before parsing (too long, cut off) or by the parser itself. */
  reject(reason: BadLineReason, buf: Buffer, start: number, end: number, sink: RowSink): BadLineReason {
    this.#bad.add(reason, buf, start, end);
    sink.rejected(reason);
    return reason;
  }

  /** Forget the width, names and anything held (the port was reopened); counters keep running. */
  reset(): void {
    this.#held.clear();
    this.#width = null;
    this.#layout = null;
    this.#names = null;
    this.#nameBytes = [];
    this.#pending = null;
  }

  get stats(): ParserStats {
    return {
      goodLines: this.#good,
      headerLines: this.#headers,
      blankLines: this.#blank,
      badLines: { ...this.#bad.counts },
      badTotal: this.#bad.total,
      lastBadLine: this.#bad.last,
      width: this.#width,
      layout: this.#layout,
      names: this.#names && [...this.#names],
    };
  }

  #values(buf: Buffer, start: number, end: number, sink: RowSink): LineOutcome {
    if (this.#width !== null) return this.reject('width', buf, start, end, sink);
    const n = this.#scan.count;
    const pending = this.#pending;
    if (pending) {
      this.#pending = null;
      if (pending.names.length === n) {
        this.#settle('values', n, pending.names);
        this.#headers++;
        this.#good++;
        sink.row(this.#scan.values, n);
        return 'row';
      }
      this.#rejectPending(pending, sink);
    }
    return this.#hold('values', n, null, sink);
  }

  #pairs(buf: Buffer, start: number, end: number, sink: RowSink): LineOutcome {
    const s = this.#scan;
    const n = s.count;
    if (this.#width !== null) {
      if (this.#layout !== 'pairs' || n !== this.#width) return this.reject('width', buf, start, end, sink);
      let k = 0;
      while (k < n && sameBytes(buf, s.nameStart[k]!, s.nameEnd[k]!, this.#nameBytes[k]!)) k++;
      if (k === n) {
        this.#good++;
        sink.row(s.values, n);
        return 'row';
      }
      // Same names in another order: place each value by name (slow, but still a good line).
      const filled = new Uint8Array(n);
      for (k = 0; k < n; k++) {
        const at = this.#names!.indexOf(buf.toString('utf8', s.nameStart[k], s.nameEnd[k]));
        if (at < 0 || filled[at]) return this.reject('width', buf, start, end, sink);
        filled[at] = 1;
        this.#row[at] = s.values[k]!;
      }
      this.#good++;
      sink.row(this.#row, n);
      return 'row';
    }
    const names = this.#spanNames(buf);
    if (new Set(names).size !== n) return this.reject('text', buf, start, end, sink);
    if (this.#pending) {
      this.#rejectPending(this.#pending, sink);
      this.#pending = null;
    }
    return this.#hold('pairs', n, names, sink);
  }

  #header(buf: Buffer, start: number, end: number, sink: RowSink, fromFirstLine: boolean): LineOutcome {
    const names = this.#spanNames(buf);
    const n = names.length;
    if (this.#width !== null) {
      if (this.#layout !== 'values' || n !== this.#width) return this.reject('text', buf, start, end, sink);
      this.#names = names; // a repeated or corrected header renames the axes
      this.#headers++;
      return 'header';
    }
    if (this.#held.count > 0) {
      if (this.#held.layout !== 'values' || this.#held.width !== n) return this.reject('text', buf, start, end, sink);
      this.#headers++;
      this.#settle('values', n, names);
      this.#good += this.#held.release(sink);
      return 'header';
    }
    if (this.#pending) this.#rejectPending(this.#pending, sink);
    this.#pending = { names, raw: Buffer.from(buf.subarray(start, Math.min(end, start + 96))), fromFirstLine };
    return 'header';
  }

  #hold(layout: Layout, n: number, names: string[] | null, sink: RowSink): LineOutcome {
    if (!this.#held.fits(layout, n, names)) this.#held.reject(this.#bad, sink);
    this.#held.add(this.#scan.values, n, layout, names);
    if (this.#held.count < this.#confirm) return 'held';
    this.#settle(layout, n, names);
    this.#good += this.#held.release(sink);
    return 'row';
  }

  #settle(layout: Layout, width: number, names: string[] | null): void {
    this.#layout = layout;
    this.#width = width;
    this.#names = names;
    this.#nameBytes = names ? names.map((name) => Buffer.from(name)) : [];
  }

  #rejectPending(pending: PendingHeader, sink: RowSink): void {
    this.reject(pending.fromFirstLine ? 'partial' : 'text', pending.raw, 0, pending.raw.length, sink);
  }

  #spanNames(buf: Buffer): string[] {
    const s = this.#scan;
    return Array.from({ length: s.count }, (_, k) => buf.toString('utf8', s.nameStart[k], s.nameEnd[k]));
  }
}

function sameBytes(buf: Buffer, start: number, end: number, name: Buffer): boolean {
  if (end - start !== name.length) return false;
  for (let i = 0; i < name.length; i++) if (buf[start + i] !== name[i]) return false;
  return true;
}

function positiveInt(v: number, what: string): number {
  if (!Number.isInteger(v) || v < 1) throw new CoreError('InvalidArguments', `${what} must be a positive integer, not ${v}`);
  return v;
}
