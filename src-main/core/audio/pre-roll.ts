/**
 * The last N ms of audio, always at hand: when the user presses record, what was said just before
 * is already here (pre-roll). A fixed ring of 16-bit samples, so memory never grows.
 */
export class PreRollBuffer {
  readonly capacity: number;
  readonly #ring: Int16Array;
  #write = 0;
  #filled = 0;

  constructor(capacityFrames: number) {
    if (!Number.isInteger(capacityFrames) || capacityFrames < 0) throw new RangeError(`pre-roll capacity must be a whole number of frames; got ${capacityFrames}`);
    this.capacity = capacityFrames;
    this.#ring = new Int16Array(capacityFrames);
  }

  get frames(): number {
    return this.#filled;
  }

  push(pcm: Int16Array): void {
    const cap = this.capacity;
    if (cap === 0) return;
    // Only the last `cap` frames of a big chunk can survive.
    const src = pcm.length > cap ? pcm.subarray(pcm.length - cap) : pcm;
    const first = Math.min(src.length, cap - this.#write);
    this.#ring.set(src.subarray(0, first), this.#write);
    if (first < src.length) this.#ring.set(src.subarray(first), 0);
    this.#write = (this.#write + src.length) % cap;
    this.#filled = Math.min(cap, this.#filled + src.length);
  }

  /** A copy of the last `frames` frames (fewer if fewer were captured), oldest first. */
  last(frames: number): Int16Array {
    const n = Math.max(0, Math.min(Math.floor(frames), this.#filled));
    const out = new Int16Array(n);
    if (n === 0) return out;
    const start = (this.#write - n + this.capacity) % this.capacity;
    const first = Math.min(n, this.capacity - start);
    out.set(this.#ring.subarray(start, start + first));
    if (first < n) out.set(this.#ring.subarray(0, n - first), first);
    return out;
  }

  clear(): void {
    this.#write = 0;
    this.#filled = 0;
  }
}
