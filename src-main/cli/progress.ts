/**
 * Upload progress on stderr: a redrawn bar on a terminal, a plain counter line every few seconds
 * otherwise (CI logs, pipes), so stdout stays free for results.
 */
export class Progress {
  readonly #tty: boolean;
  #lastLine = 0;
  #lastText = '';

  constructor(private readonly total: number, private readonly out: NodeJS.WriteStream = process.stderr) {
    this.#tty = Boolean(out.isTTY);
  }

  update(done: number, detail: string): void {
    const text = `${done}/${this.total} ${detail}`;
    if (this.#tty) {
      const width = 30;
      const filled = this.total === 0 ? width : Math.round((done / this.total) * width);
      this.out.write(`\r[${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${text}\x1b[K`);
      return;
    }
    const now = Date.now();
    if (text !== this.#lastText && (now - this.#lastLine > 2000 || done === this.total)) {
      this.out.write(`${text}\n`);
      this.#lastLine = now;
      this.#lastText = text;
    }
  }

  finish(): void {
    if (this.#tty) this.out.write('\n');
  }
}
