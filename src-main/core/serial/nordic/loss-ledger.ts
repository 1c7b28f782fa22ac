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
/** How many of the newest gaps a `dr` growth is matched against by size (see deviceDropped). */
const EXACT_MATCH_GAPS = 64;

export class LossLedger {
  readonly #gaps: Gap[] = [];
  /** Device drops announced (dr growth) and not yet given to a gap (see deviceDropped). */
  #credit = 0;
  #lost = 0;
  #device = 0;
  #forgotten = 0;
  #forgottenLost = 0;
  /** Gaps before this index were seen before the last session info (see deviceDropped). */
  #mark = 0;
  /** ... and before this one, before the one before it. */
  #windowFrom = 0;

  add(reading: number, seq: number, count: number, part: number): void {
    this.#lost += count;
    this.#gaps.push({ reading, seq, count, device: 0, part });
    if (this.#credit > 0) this.#matchExactly();
    if (this.#gaps.length > KEEP_GAPS) {
      const g = this.#gaps.shift()!;
      this.#mark = Math.max(0, this.#mark - 1);
      this.#windowFrom = Math.max(0, this.#windowFrom - 1);
      this.#forgotten++;
      this.#forgottenLost += g.count;
    }
  }

  /**
   * A session info said the board's `dr` grew by `n` (0 too: every session info moves the window
   * its drops are looked for in). A board drops whole runs, and its session info comes from a
   * timer of its own: just after the gaps of the drops it counts, or just before the last of
   * them arrives. So the drops wait, pending, until a set of gaps seen since the session info
   * before the last one adds up to exactly them (a transport loss beside them keeps its count);
   * what is still pending at the next session info goes to those gaps first, earliest first,
   * then waits for gaps not seen yet. (Earliest-first at once gave a drop of 5 to a transport
   * loss of 12 before it: 7 lost on the way, and the drop's own gap none.)
   */
  deviceDropped(n: number): void {
    if (this.#credit > 0) this.#settle(this.#window(), this.#credit);
    this.#windowFrom = this.#mark;
    this.#mark = this.#gaps.length;
    if (n > 0) {
      this.#credit += n;
      this.#matchExactly();
    }
  }

  /** Gaps a pending drop may be: those seen since the session info before the last one. */
  #window(): Gap[] {
    return this.#gaps.slice(Math.max(this.#windowFrom, this.#gaps.length - EXACT_MATCH_GAPS));
  }

  #matchExactly(): void {
    const recent = this.#window();
    const exact = subsetSumming(recent.map((g) => g.count - g.device), this.#credit);
    if (!exact) return;
    for (const i of exact) recent[i]!.device = recent[i]!.count;
    this.#device += this.#credit;
    this.#credit = 0;
  }

  /** `n` pending drops given to `gaps` earliest first (and what is left to gaps to come). */
  #settle(gaps: Gap[], n: number): void {
    let left = n;
    for (const g of gaps) {
      if (left === 0) break;
      const take = Math.min(left, g.count - g.device);
      g.device += take;
      left -= take;
    }
    this.#device += n - left;
    this.#credit = left;
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

/**
 * Indices of items of `sizes` (each ≥ 0) that add up to exactly `n`, or null: a table of the sums
 * reachable with the first k items (n is a few hundred at most between two session infos).
 */
function subsetSumming(sizes: number[], n: number): number[] | null {
  if (n > 1_000_000) return null;
  /** by[s]: the item that first reached sum s (−1: not reached; s = 0 needs none). */
  const by = new Int32Array(n + 1).fill(-1);
  const reached = new Uint8Array(n + 1);
  reached[0] = 1;
  for (let i = 0; i < sizes.length; i++) {
    const w = sizes[i]!;
    if (w <= 0) continue;
    for (let s = n; s >= w; s--) {
      if (!reached[s] && reached[s - w]) {
        reached[s] = 1;
        by[s] = i;
      }
    }
  }
  if (!reached[n]) return null;
  const out: number[] = [];
  for (let s = n; s > 0; s -= sizes[by[s]!]!) out.push(by[s]!);
  return out;
}
