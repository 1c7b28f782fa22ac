/** A set of callbacks; each can be removed by the returned function or by aborting its signal. */
export class Listeners<T> {
  readonly #set = new Set<(v: T) => void>();

  on(cb: (v: T) => void, signal?: AbortSignal): () => void {
    if (signal?.aborted) return () => {};
    this.#set.add(cb);
    const off = () => {
      this.#set.delete(cb);
      signal?.removeEventListener('abort', off);
    };
    signal?.addEventListener('abort', off, { once: true });
    return off;
  }

  emit(v: T): void {
    for (const cb of [...this.#set]) cb(v);
  }

  get size(): number {
    return this.#set.size;
  }
}
