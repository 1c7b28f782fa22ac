/**
 * Gathers rows as they arrive (many small chunks from a port) into one Float32Array per flush,
 * so the UI gets at most one message per tick however fast the source is.
 */
export class RowBatcher {
  #buf: Float32Array<ArrayBuffer>;
  #rows = 0;
  #first: number;

  /** `firstIndex`: the row index of the first row pushed (a batcher replacing another goes on counting). */
  constructor(readonly axisCount: number, initialRows = 256, firstIndex = 0) {
    this.#buf = new Float32Array(initialRows * axisCount);
    this.#first = firstIndex;
  }

  push(values: ArrayLike<number>, rows: number): void {
    const need = (this.#rows + rows) * this.axisCount;
    if (need > this.#buf.length) {
      const grown = new Float32Array(Math.max(need, this.#buf.length * 2));
      grown.set(this.#buf.subarray(0, this.#rows * this.axisCount));
      this.#buf = grown;
    }
    const at = this.#rows * this.axisCount;
    for (let i = 0; i < rows * this.axisCount; i++) this.#buf[at + i] = values[i]!;
    this.#rows += rows;
  }

  /** The rows gathered since the last take (a copy the caller owns), and the index of the first. */
  take(): { values: Float32Array<ArrayBuffer>; firstIndex: number } | null {
    if (this.#rows === 0) return null;
    const values = this.#buf.slice(0, this.#rows * this.axisCount);
    const firstIndex = this.#first;
    this.#first += this.#rows;
    this.#rows = 0;
    return { values, firstIndex };
  }
}
