import type { Sample } from '../contract/contract.js';
import type { SampleStore } from '../samples/sample-store.js';
import { decodeSampleBytes, type Decoded } from './decoded.js';

/** Enough for a few hour-long sensor samples or one long recording; the rest is decoded again. */
export const DEFAULT_CACHE_BYTES = 192 * 1024 * 1024;

/**
 * Decoded samples, least recently used first out, within a byte budget. Keyed by id and content
 * hash, so a changed file is never answered from an old decode. A decode in flight is shared:
 * the overview and the first zoom of one sample read its file once.
 */
export class DecodedCache {
  readonly #entries = new Map<string, Decoded>();
  readonly #inFlight = new Map<string, Promise<Decoded>>();
  #bytes = 0;

  constructor(private readonly store: SampleStore, private readonly budget = DEFAULT_CACHE_BYTES) {}

  get bytes(): number {
    return this.#bytes;
  }

  async get(sample: Sample): Promise<Decoded> {
    const key = `${sample.id}:${sample.sha256}`;
    const hit = this.#entries.get(key);
    if (hit) {
      this.#entries.delete(key); // re-insert: Map order is our recency order
      this.#entries.set(key, hit);
      return hit;
    }
    let pending = this.#inFlight.get(key);
    if (!pending) {
      pending = this.store.readBytes(sample).then((bytes) => decodeSampleBytes(sample, bytes));
      this.#inFlight.set(key, pending);
      void pending.then((d) => this.#put(key, d), () => {}).finally(() => this.#inFlight.delete(key));
    }
    return pending;
  }

  has(id: string): boolean {
    for (const key of this.#entries.keys()) if (key.startsWith(`${id}:`)) return true;
    return false;
  }

  /** A deleted sample frees its memory at once. */
  forget(id: string): void {
    for (const [key, d] of this.#entries) {
      if (key.startsWith(`${id}:`)) {
        this.#entries.delete(key);
        this.#bytes -= d.bytes;
      }
    }
  }

  #put(key: string, d: Decoded): void {
    if (d.bytes > this.budget || this.#entries.has(key)) return;
    this.#entries.set(key, d);
    this.#bytes += d.bytes;
    for (const [k, old] of this.#entries) {
      if (this.#bytes <= this.budget) break;
      this.#entries.delete(k);
      this.#bytes -= old.bytes;
    }
  }
}
