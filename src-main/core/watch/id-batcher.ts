/**
 * Gathers sample ids that arrive close together (a tool dropping 50 files at once) so the
 * listener hears one call, not 50: the upload queue can then batch them into few requests.
 */
export class IdBatcher {
  readonly #windowMs: number;
  readonly #deliver: (ids: string[]) => void;
  #ids: string[] = [];
  #timer: NodeJS.Timeout | undefined;

  constructor(windowMs: number, deliver: (ids: string[]) => void) {
    this.#windowMs = windowMs;
    this.#deliver = deliver;
  }

  push(id: string): void {
    this.#ids.push(id);
    this.#timer ??= setTimeout(() => this.flush(), this.#windowMs);
  }

  /** Delivers what is waiting now; close() calls it so no id is lost at shutdown. */
  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#ids.length === 0) return;
    this.#deliver(this.#ids.splice(0));
  }
}
