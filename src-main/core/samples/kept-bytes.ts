/** Bytes kept between hashing a file and sending it, so a bulk upload reads each file once. */
const BYTE_CACHE_LIMIT = 64 * 1024 * 1024;

/**
 * Bytes just hashed for a sample, kept so the upload sends exactly them without reading the file
 * again. Bounded; what does not fit is read from disk (and checked against the hash) later.
 */
export class KeptBytes {
  readonly #bytes = new Map<string, Buffer>();
  #size = 0;

  keep(id: string, bytes: Buffer): void {
    if (this.#size + bytes.length > BYTE_CACHE_LIMIT) return;
    this.#bytes.set(id, bytes);
    this.#size += bytes.length;
  }

  /** The bytes kept for `id`, handed over once. */
  take(id: string): Buffer | undefined {
    const kept = this.#bytes.get(id);
    if (kept) {
      this.#bytes.delete(id);
      this.#size -= kept.length;
    }
    return kept;
  }
}
