/** Why a line did not become a row. */
export type BadLineReason = 'text' | 'nan' | 'width' | 'garbage' | 'too-long' | 'partial';
export const BAD_LINE_REASONS: readonly BadLineReason[] = ['text', 'nan', 'width', 'garbage', 'too-long', 'partial'];

export interface BadLineSample {
  reason: BadLineReason;
  /** The start of the line as printable text, for the UI. */
  text: string;
}

/** Enough to recognise the line in the UI; the rest is noise. */
const SAMPLE_BYTES = 96;
const SAMPLE_CHARS = 80;

/**
 * Counts rejected lines by reason and keeps the latest one. Only its raw head is copied on the
 * hot path; turning it into text waits until someone asks, because a garbage storm can reject
 * lines as fast as good ones arrive.
 */
export class BadLineLog {
  readonly counts: Record<BadLineReason, number> = { text: 0, nan: 0, width: 0, garbage: 0, 'too-long': 0, partial: 0 };
  total = 0;
  readonly #raw = Buffer.allocUnsafe(SAMPLE_BYTES);
  #rawLen = 0;
  #rawTruncated = false;
  #reason: BadLineReason | null = null;
  #text: string | null = null;

  add(reason: BadLineReason, buf: Buffer, start: number, end: number): void {
    this.#count(reason);
    const n = Math.min(end - start, SAMPLE_BYTES);
    buf.copy(this.#raw, 0, start, start + n);
    this.#rawLen = n;
    this.#rawTruncated = end - start > n;
  }

  /** A rejection whose bytes are gone (rows held while the width was settled): describe it instead. */
  addText(reason: BadLineReason, text: string): void {
    this.#count(reason);
    this.#rawLen = 0;
    this.#text = clip(text, false);
  }

  get last(): BadLineSample | null {
    if (this.#reason === null) return null;
    this.#text ??= clip(printable(this.#raw.toString('utf8', 0, this.#rawLen)), this.#rawTruncated);
    return { reason: this.#reason, text: this.#text };
  }

  reset(): void {
    for (const r of BAD_LINE_REASONS) this.counts[r] = 0;
    this.total = 0;
    this.#reason = null;
    this.#text = null;
  }

  #count(reason: BadLineReason): void {
    this.counts[reason]++;
    this.total++;
    this.#reason = reason;
    this.#text = null;
  }
}

/** Control bytes shown as \xNN so the UI can display binary junk without breaking its layout. */
function printable(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\x00-\x1f\x7f]/g, (c) => (c === '\t' ? '\\t' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`));
}

function clip(s: string, truncated: boolean): string {
  return s.length > SAMPLE_CHARS ? `${s.slice(0, SAMPLE_CHARS)}…` : truncated ? `${s}…` : s;
}
