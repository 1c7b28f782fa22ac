/**
 * The last `capacity` rows of a multi-axis stream, one Float32Array per axis. Appending is O(rows)
 * with no allocation, so a fast stream never churns the garbage collector.
 */
export class RingSeries {
  readonly axisCount: number;
  readonly capacity: number;
  readonly #axes: Float32Array[];
  #next = 0;
  #length = 0;
  /** Rows ever appended: lets a drawing loop skip frames where nothing arrived. */
  total = 0;

  constructor(axisCount: number, capacity: number) {
    this.axisCount = axisCount;
    this.capacity = Math.max(1, Math.floor(capacity));
    this.#axes = Array.from({ length: axisCount }, () => new Float32Array(this.capacity));
  }

  get length(): number {
    return this.#length;
  }

  /** `values` is row-major, `axisCount` values per row. */
  append(values: Float32Array): void {
    const rows = Math.floor(values.length / this.axisCount);
    const skip = Math.max(0, rows - this.capacity); // only the newest rows can fit
    for (let r = skip; r < rows; r++) {
      for (let a = 0; a < this.axisCount; a++) this.#axes[a]![this.#next] = values[r * this.axisCount + a]!;
      this.#next = (this.#next + 1) % this.capacity;
    }
    this.#length = Math.min(this.capacity, this.#length + rows);
    this.total += rows;
  }

  /** Physical index of position 0 (the oldest row held) in every axis array. */
  get start(): number {
    return (this.#next - this.#length + this.capacity) % this.capacity;
  }

  /** The storage of one axis, for hot loops: position i is at `(start + i) % capacity`. */
  raw(axis: number): Float32Array {
    return this.#axes[axis]!;
  }

  /** Value of `axis` at position `i`, 0 = oldest row held. */
  get(axis: number, i: number): number {
    const start = (this.#next - this.#length + this.capacity) % this.capacity;
    return this.#axes[axis]![(start + i) % this.capacity]!;
  }
}
