import { describe, expect, it } from 'vitest';
import { checkCounters } from '../../../src-main/core/samples/quality/counters-check.js';
import { describeGaps, takeGaps } from '../../../src-main/core/samples/quality/take-gaps.js';

describe('known losses of a take', () => {
  it('places gaps on the take\'s time axis and says them as the issue asks', () => {
    const gaps = takeGaps([{ reading: 442, seq: 9000, count: 12, device: 0 }], 101, 100);
    expect(gaps).toEqual([{ at_s: 3.41, count: 12, device: 0, seq: 9000 }]);
    expect(describeGaps(gaps)).toBe('12 samples lost at 3.41 s, 0 dropped by the board');
    expect(describeGaps([...gaps, { at_s: 7.2, count: 3, device: 3, seq: 9500 }])).toBe('12 samples lost at 3.41 s and 3 at 7.2 s (15 in all), 3 dropped by the board');
    expect(describeGaps([])).toBe('no samples lost');
  });

  it('the quality check reports exact losses (a warning under 1 %, an error above) and whose they were', () => {
    const [w] = checkCounters({ rows: 2000, dropped_lines: 12, gaps: [{ at_s: 3.41, count: 12, device: 0, seq: 1 }] });
    expect(w).toMatchObject({ code: 'lost-readings', severity: 'warning' });
    expect(w!.message).toMatch(/^Gaps: 12 samples lost at 3\.41 s, 0 dropped by the board \(0\.60%, known exactly from the board's sequence numbers\)/);
    expect(w!.message).toMatch(/lost on the way/);
    const [e] = checkCounters({ rows: 100, dropped_lines: 5, gaps: [{ at_s: 0.5, count: 5, device: 5, seq: 1 }] });
    expect(e).toMatchObject({ severity: 'error' });
    expect(e!.message).toMatch(/The board dropped samples itself/);
  });
});
