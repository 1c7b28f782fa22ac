/**
 * A take asked for L ms from a stream at interval I holds exactly round(L / I) consecutive
 * readings of the board. Counted in rows, not timed by the host: on a busy laptop the host's timer
 * fires late (a 200 Hz take once ran 13 rows long) or the rows come late, but the board's own
 * readings arrive in order whatever the host does, so counting them is exact.
 *
 * The rate a measured stream is counted at moves a little while the take runs (the estimate
 * settles), so it is read again as the count nears its end, and the rate the take was found full
 * at is the one it declares: rows × interval is then the length asked, to half a reading.
 */
/** An estimate looser than this (its ~95 % interval, relative) does not count a take yet. */
export const COUNTING_MAX_ERROR = 0.01;

/**
 * The rate a take may be counted at: the given rate, or an estimate once it is within
 * COUNTING_MAX_ERROR. A stream's first lines give a rough one (and a source that has not measured
 * yet announces a 1 Hz placeholder): counting at it would fill a 10 s take with 10 rows and drop
 * the rest. Until then the take keeps every row and the host's timer bounds it.
 */
export function countingRate(r: { frequencyHz: number; relativeError: number } | null): number | null {
  return r && r.relativeError <= COUNTING_MAX_ERROR ? r.frequencyHz : null;
}

/**
 * The rate a take declares, one rule for the app and `record serial`: the estimate after it (it
 * has seen the whole take and the readings that confirm its end, so it is the most precise) when
 * it agrees with the rate the take was counted at to within what a take can hold (1 %); the
 * counted rate when they differ by more (the later estimate moved for another reason), or when
 * there is no later one.
 */
export function declaredRate(counted: number | null, after: number | null): number | null {
  if (after === null || !(after > 0)) return counted;
  return counted === null || Math.abs(after / counted - 1) < 0.01 ? after : counted;
}

/**
 * The rate a full take declares and how many of its readings it keeps, so that rows × interval is
 * the length asked, to half a reading, whichever rate is declared. The take was counted at the
 * estimate as it stood (`counted`); the estimate after it (`after`) is more precise, and after a
 * stall on a loaded host the two can differ by a reading in 300. When `after` is declared and asks
 * for fewer readings than were kept, the last ones (past the length asked) are left out of the
 * sample; when it asks for more than were kept, the counted rate is declared instead.
 */
export function declaredTake(lengthMs: number, kept: number, counted: number | null, after: number | null): { hz: number | null; rows: number } {
  const hz = declaredRate(counted, after);
  if (hz === null || counted === null || hz === counted) return { hz, rows: kept };
  const want = Math.max(1, Math.round((lengthMs * hz) / 1000));
  if (want < kept) return { hz, rows: want };
  if (want > kept) return { hz: counted, rows: kept };
  return { hz, rows: kept };
}

export class TakeLength {
  #target: number | null = null;
  #hz: number | null = null;
  #checkedAt = -Infinity;
  #full = false;
  readonly #listeners: Array<() => void> = [];
  /** Rows kept before the take began (not counted); null: it has not begun, every row is kept uncounted. */
  #from: number | null;

  constructor(
    readonly lengthMs: number,
    /** The stream's rate now: the given one, or the reader's current estimate; null while unknown. */
    private readonly rateHz: () => number | null,
    /** false: the take begins only at begin() (a session waiting for its other sources to start). */
    begun = true,
  ) {
    this.#from = begun ? 0 : null;
  }

  /** The take begins after the `have` rows kept so far: counting starts here. */
  begin(have: number): void {
    this.#from ??= have;
  }

  /** How many of `rows` new rows, after `have` rows already kept, belong to the take. */
  accept(have: number, rows: number, nowMs: number): number {
    if (this.#full) return 0;
    if (this.#from === null) return rows;
    have -= this.#from;
    const near = this.#target !== null && have + rows >= this.#target * 0.98 - 2;
    // Read every batch near the end (it is the estimate as it stands, no refit), else a few times a second.
    if (this.#target === null || near || nowMs - this.#checkedAt >= 100) {
      this.#checkedAt = nowMs;
      const hz = this.rateHz();
      if (hz !== null && Number.isFinite(hz) && hz > 0) {
        this.#hz = hz;
        this.#target = Math.max(1, Math.round((this.lengthMs * hz) / 1000));
      }
    }
    if (this.#target === null) return rows; // the rate is not known yet: the host's timer ends the take
    const take = Math.max(0, Math.min(rows, this.#target - have));
    if (have + take >= this.#target) {
      this.#full = true;
      for (const cb of this.#listeners.splice(0)) cb();
    }
    return take;
  }

  get full(): boolean {
    return this.#full;
  }

  /** The rate the take was counted at (when full), else the latest known; null if never known. */
  get countedHz(): number | null {
    return this.#hz;
  }

  onFull(cb: () => void): void {
    if (this.#full) cb();
    else this.#listeners.push(cb);
  }
}
