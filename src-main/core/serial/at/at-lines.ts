/**
 * Turns the bytes a board sends into lines. Boards end lines with "\r\n", "\n" or a lone "\r"
 * (the Mbed REPL redraws its prompt with "\33[2K\r> "), and chunks split anywhere, including
 * between "\r" and "\n" and inside an ANSI sequence.
 */

// CSI sequences (cursor save/restore, clear line, move to column) and the two-byte save/restore.
const ANSI = /\x1b\[[0-9;?]*[A-Za-z~]|\x1b[78]/g;

export function stripAnsi(text: string): string {
  return text.includes('\x1b') ? text.replace(ANSI, '') : text;
}

export class LineSplitter {
  // The unterminated line as pieces: a long base64 line arrives in many chunks, and joining on
  // every chunk would make reading it quadratic.
  #parts: string[] = [];
  #headLength = 0;
  // The last chunk ended in "\r": whether it is "\r\n" or a lone "\r" is decided by the next one.
  #pendingCr = false;

  /** Feeds text (one byte per char, latin1); returns the lines it completed, ANSI stripped. */
  push(text: string): string[] {
    const lines: string[] = [];
    let from = 0;
    if (this.#pendingCr && text.length > 0) {
      this.#pendingCr = false;
      this.#endLine(lines);
      if (text.charCodeAt(0) === 0x0a) from = 1;
    }
    while (from < text.length) {
      const i = nextBreak(text, from);
      if (i < 0) {
        this.#add(text.slice(from));
        break;
      }
      if (i > from) this.#add(text.slice(from, i));
      if (text.charCodeAt(i) === 0x0d && i + 1 === text.length) {
        this.#pendingCr = true;
        break;
      }
      this.#endLine(lines);
      from = text.charCodeAt(i) === 0x0d && text.charCodeAt(i + 1) === 0x0a ? i + 2 : i + 1;
    }
    return lines;
  }

  /**
   * True when the unterminated text is the prompt "> ". Only the start is looked at: the prompt
   * begins a line, and base64 or hex data can never contain "> ".
   */
  tailIsPrompt(): boolean {
    if (this.#pendingCr || this.#headLength < 2) return false;
    let head = '';
    for (const p of this.#parts) {
      head += p;
      if (head.length >= 32) break;
    }
    return stripAnsi(head).startsWith('> ');
  }

  reset(): void {
    this.#parts = [];
    this.#headLength = 0;
    this.#pendingCr = false;
  }

  #add(piece: string): void {
    this.#parts.push(piece);
    this.#headLength += piece.length;
  }

  #endLine(lines: string[]): void {
    lines.push(stripAnsi(this.#parts.join('')));
    this.#parts = [];
    this.#headLength = 0;
  }
}

function nextBreak(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a || c === 0x0d) return i;
  }
  return -1;
}
