/** The open log folds its settled entries once it holds this many, and then at twice what it kept. */
const FOLD_AT = 256;

/**
 * The lines a stream lost, by the reading they come before, for the whole life of the stream:
 * `lostBefore(line)` counts a stretch's own losses however long ago it began.
 *
 * Losses still inside the rate estimator's ring may be re-sized by a later refit, so they stay in
 * an open map (reading number after which the loss lies → lines). Once the ring has moved past
 * them they can no longer change, and they are folded into running totals in reading order, found
 * by binary search: a board that drops readings all day costs 16 bytes a loss, not a walk over
 * every one. Folding is tried only when the open map has doubled since the last time, so a map
 * whose entries all lie inside the ring does not cost a pass at every chunk.
 */
export class LossLog {
  readonly #open = new Map<number, number>();
  #foldedAfter: number[] = [];
  #foldedTotal: number[] = [];
  #foldAt = FOLD_AT;

  /** `lines` (negative: a loss found smaller) lost just after reading `after`. */
  add(after: number, lines: number): void {
    const had = (this.#open.get(after) ?? 0) + lines;
    if (had === 0) this.#open.delete(after);
    else this.#open.set(after, had);
  }

  /** Lines lost before reading `line`. */
  lostBefore(line: number): number {
    // The last folded loss before `line` (folded ones all lie before the open ones).
    let lo = 0;
    let hi = this.#foldedAfter.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.#foldedAfter[mid]! < line) lo = mid + 1;
      else hi = mid;
    }
    let lost = lo > 0 ? this.#foldedTotal[lo - 1]! : 0;
    for (const [after, lines] of this.#open) if (after < line) lost += lines;
    return lost;
  }

  /** Losses a refit may still re-size: a few hundred at most. */
  get open(): number {
    return this.#open.size;
  }

  /**
   * No loss after a reading below `settledBefore` can change any more (the ring's oldest chunk
   * has moved past it): those are folded, when the open map has grown enough to be worth a pass.
   */
  settle(settledBefore: number): void {
    if (this.#open.size < this.#foldAt) return;
    const old: Array<[number, number]> = [];
    for (const [after, lines] of this.#open) if (after < settledBefore) old.push([after, lines]);
    old.sort((a, b) => a[0] - b[0]);
    let total = this.#foldedTotal.at(-1) ?? 0;
    for (const [after, lines] of old) {
      this.#open.delete(after);
      total += lines;
      this.#foldedAfter.push(after);
      this.#foldedTotal.push(total);
    }
    this.#foldAt = Math.max(FOLD_AT, 2 * this.#open.size);
  }

  clear(): void {
    this.#open.clear();
    this.#foldedAfter = [];
    this.#foldedTotal = [];
    this.#foldAt = FOLD_AT;
  }
}
