/**
 * One call once things are quiet: each `soon()` starts the wait again, so a burst of changes (an
 * import of thousands of files, an upload round) costs one call after it rather than one per
 * batch; `cancel()` drops a wait (the caller asked at once meanwhile, or the view went away).
 */
export class Settle {
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly ms: number,
    private readonly run: () => void,
  ) {}

  soon(): void {
    this.cancel();
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.run();
    }, this.ms);
  }

  cancel(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  /**
   * `soon()` on every change the given subscriptions report (the sample index, a core event):
   * how each view that refreshes after a burst follows what it counts. Returns the cleanup for an
   * $effect: it unsubscribes them all and drops a wait.
   */
  follow(...subscriptions: Array<(changed: () => void) => () => void>): () => void {
    const offs = subscriptions.map((subscribe) => subscribe(() => this.soon()));
    return () => {
      for (const off of offs) off();
      this.cancel();
    };
  }
}
