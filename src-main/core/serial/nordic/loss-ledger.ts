/**
 * Known losses of a Nordic stream: every sequence gap, where it is in the stream's readings, and
 * how much of it the board itself dropped (the growth of `dr` in its session info, which comes up
 * to a few seconds later) rather than the link. A gap is never filled; it is only written down.
 */
export interface Gap {
  /** The stream's reading number of the first missing sample (readings = samples received + lost, from 1). */
  readonly reading: number;
  /** The board's seq of the first missing sample. */
  readonly seq: number;
  readonly count: number;
  /** Of `count`, how many the board says it dropped (its `dr`); the rest was lost on the way. */
  device: number;
  /** Which part (session) of the stream it is in, from 0. */
  readonly part: number;
}

/** Gaps older than this many are only summed: a stream losing samples for hours must not grow memory. */
const KEEP_GAPS = 10_000;

export class LossLedger {
  readonly #gaps: Gap[] = [];
  /** Device drops announced (dr growth) and not yet matched to a gap. */
  #credit = 0;
  #lost = 0;
  #device = 0;
  #forgotten = 0;
  #forgottenLost = 0;

  add(reading: number, seq: number, count: number, part: number): void {
    const device = Math.min(this.#credit, count);
    this.#credit -= device;
    this.#device += device;
    this.#lost += count;
    this.#gaps.push({ reading, seq, count, device, part });
    if (this.#gaps.length > KEEP_GAPS) {
      const g = this.#gaps.shift()!;
      this.#forgotten++;
      this.#forgottenLost += g.count;
    }
  }

  /** The board's `dr` grew by `n`: those samples were dropped on the board, so gaps seen (or to be seen) are theirs first. */
  deviceDropped(n: number): void {
    let left = n;
    for (const g of this.#gaps) {
      if (left === 0) break;
      const take = Math.min(left, g.count - g.device);
      g.device += take;
      left -= take;
    }
    this.#device += n - left;
    this.#credit += left;
  }

  /** Every sample lost so far (gaps), and of those, how many the board dropped. */
  get lost(): number {
    return this.#lost;
  }
  get device(): number {
    return this.#device;
  }

  /** Samples lost before reading number `reading` (as RowTiming.lines counts readings). */
  lostBefore(reading: number): number {
    let n = this.#forgottenLost;
    for (const g of this.#gaps) if (g.reading < reading) n += g.count;
    return n;
  }

  /** The gaps between two readings of the stream (after `first`, up to and including `last`). */
  between(first: number, last: number): Gap[] {
    return this.#gaps.filter((g) => g.reading > first && g.reading <= last).map((g) => ({ ...g }));
  }
}
