import { describe, expect, it } from 'vitest';
import { countingRate, declaredTake, TakeLength } from '../../../src-main/core/capture/take-length.js';

/** Feeds batches of `sizes` rows (at 10 ms apart) and returns how many the take kept of each. */
function feed(t: TakeLength, sizes: number[]): number[] {
  let have = 0;
  return sizes.map((n, i) => {
    const k = t.accept(have, n, i * 10);
    have += k;
    return k;
  });
}

describe('TakeLength: a take counted in the board\'s readings', () => {
  it('keeps exactly round(L / I) rows, however the rows are batched, and says full once', () => {
    const t = new TakeLength(1500, () => 200);
    let fulls = 0;
    t.onFull(() => fulls++);
    const kept = feed(t, [7, 100, 100, 100, 13]);
    expect(kept).toEqual([7, 100, 100, 93, 0]);
    expect(t.full).toBe(true);
    expect(fulls).toBe(1);
    expect(t.countedHz).toBe(200);
  });

  it('a take that begins later keeps every row uncounted until begin(), then exactly round(L / I) from there', () => {
    const t = new TakeLength(500, () => 100, false);
    let have = 0;
    for (const n of [30, 30, 30]) have += t.accept(have, n, 0); // a microphone still warming up: 0.9 s of rows
    expect(have).toBe(90);
    expect(t.full).toBe(false);
    t.begin(have);
    const kept = [20, 20, 20].map((n) => {
      const k = t.accept(have, n, 0);
      have += k;
      return k;
    });
    expect(kept).toEqual([20, 20, 10]);
    expect(have - 90).toBe(50);
    expect(t.full).toBe(true);
  });

  it('does not count at a rough first estimate (nor a 1 Hz placeholder): every row is kept until the estimate is within 1 %', () => {
    let estimate: { frequencyHz: number; relativeError: number } | null = null;
    const t = new TakeLength(10_000, () => countingRate(estimate));
    expect(feed(t, [40])).toEqual([40]); // nothing measured yet
    estimate = { frequencyHz: 1, relativeError: 0.5 }; // a placeholder would make this a 10-row take
    expect(t.accept(40, 40, 200)).toBe(40);
    expect(t.full).toBe(false);
    estimate = { frequencyHz: 100.2, relativeError: 0.004 };
    expect(t.accept(80, 2000, 400)).toBe(1002 - 80);
    expect(t.full).toBe(true);
    expect(countingRate({ frequencyHz: 100, relativeError: 0.0101 })).toBeNull();
    expect(countingRate({ frequencyHz: 100, relativeError: 0.01 })).toBe(100);
  });

  it('rounds to the nearest reading: 500 ms of a 100.3 Hz board is 50 readings, of 62.5 Hz 31', () => {
    expect(feed(new TakeLength(500, () => 100.3), [60]).at(0)).toBe(50);
    expect(feed(new TakeLength(500, () => 62.5), [60]).at(0)).toBe(31);
  });

  it('follows a measured rate as it settles, and declares the rate it was counted full at', () => {
    let hz = 101; // a rough first estimate
    const t = new TakeLength(1000, () => hz);
    feed(t, [50]);
    hz = 100; // settled before the end
    let have = 50;
    for (let i = 1; !t.full && i < 20; i++) have += t.accept(have, 10, 1000 + i * 200);
    expect(have).toBe(100);
    expect(t.countedHz).toBe(100);
  });

  it('keeps every row while the rate is unknown (the host\'s timer ends such a take)', () => {
    const t = new TakeLength(1000, () => null);
    expect(feed(t, [500, 500, 500])).toEqual([500, 500, 500]);
    expect(t.full).toBe(false);
    expect(t.countedHz).toBeNull();
  });

  it('a listener added after the take is full is called at once', () => {
    const t = new TakeLength(100, () => 100);
    feed(t, [20]);
    let called = false;
    t.onFull(() => (called = true));
    expect(called).toBe(true);
  });
});

describe('declaredTake: the rate a full take declares and the readings it keeps', () => {
  it('rows × interval is the length asked, to half a reading, whichever rate is declared', () => {
    // Counted at 100.2 Hz (301 rows for 3 s); the estimate after it says 100.0: 300 readings kept at 100.0.
    expect(declaredTake(3000, 301, 100.2, 100.0)).toEqual({ hz: 100.0, rows: 300 });
    // The estimate after asks for more than were kept: the counted rate is declared.
    expect(declaredTake(3000, 299, 99.8, 100.0)).toEqual({ hz: 99.8, rows: 299 });
    // They agree on the count: the later, more precise rate.
    expect(declaredTake(3000, 300, 100.01, 99.99)).toEqual({ hz: 99.99, rows: 300 });
    // Further apart than 1 %: the counted rate, every row kept; not full (no counted rate): as read.
    expect(declaredTake(3000, 300, 100, 103)).toEqual({ hz: 100, rows: 300 });
    expect(declaredTake(3000, 120, null, 100)).toEqual({ hz: 100, rows: 120 });
    for (const [kept, counted, after] of [[301, 100.2, 100.0], [299, 99.8, 100.0], [300, 100.01, 99.99]] as const) {
      const t = declaredTake(3000, kept, counted, after);
      expect(Math.abs(t.rows * (1000 / t.hz!) - 3000)).toBeLessThanOrEqual(500 / t.hz!);
    }
  });
});
