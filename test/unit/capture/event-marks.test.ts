import { describe, it, expect } from 'vitest';
import { EventMarks } from '../../../src-main/core/capture/event-marks.js';
import { CoreError } from '../../../src-main/core/errors.js';

describe('EventMarks', () => {
  it('gives each source its own row indices, with gaps covered by the sample label', () => {
    // Two sources: a 100 Hz board and a 50 Hz one. Events at 1 s–2 s ("tap") and 3 s–end ("shake").
    const m = new EventMarks(2);
    m.mark('tap', 1000, [100, 50]);
    m.mark(null, 2000, [200, 100]);
    m.mark('shake', 3000, [300, 150]);
    expect(m.events).toEqual([
      { label: 'tap', startMs: 1000, endMs: 2000 },
      { label: 'shake', startMs: 3000, endMs: null },
    ]);
    expect(m.structuredLabels(0, 400, 'idle')).toEqual([
      { startIndex: 0, endIndex: 99, label: 'idle' },
      { startIndex: 100, endIndex: 199, label: 'tap' },
      { startIndex: 200, endIndex: 299, label: 'idle' },
      { startIndex: 300, endIndex: 399, label: 'shake' },
    ]);
    expect(m.structuredLabels(1, 200, null)).toEqual([
      { startIndex: 50, endIndex: 99, label: 'tap' },
      { startIndex: 150, endIndex: 199, label: 'shake' },
    ]);
  });

  it('a part of a take (rows [from, rows): a board restarted mid-take) gets the events of its own rows, counted from its first', () => {
    const m = new EventMarks(1);
    m.mark('tap', 1000, [100]);
    m.mark(null, 2000, [200]);
    m.mark('shake', 2500, [250]);
    // Part 1: rows 0-179 of the take; part 2: rows 180-399. "tap" spans the restart.
    expect(m.structuredLabels(0, 180, 'idle')).toEqual([
      { startIndex: 0, endIndex: 99, label: 'idle' },
      { startIndex: 100, endIndex: 179, label: 'tap' },
    ]);
    expect(m.structuredLabels(0, 400, 'idle', 180)).toEqual([
      { startIndex: 0, endIndex: 19, label: 'tap' },
      { startIndex: 20, endIndex: 69, label: 'idle' },
      { startIndex: 70, endIndex: 219, label: 'shake' },
    ]);
    expect(m.structuredLabels(0, 400, null, 300)).toEqual([{ startIndex: 0, endIndex: 99, label: 'shake' }]);
    expect(m.structuredLabels(0, 180, null, 180)).toBeNull(); // a part with no rows
  });

  it('starting an event ends the open one (labels never overlap)', () => {
    const m = new EventMarks(1);
    m.mark('a', 0, [0]);
    m.mark('b', 500, [50]);
    m.mark(null, 800, [80]);
    expect(m.structuredLabels(0, 100, 'rest')).toEqual([
      { startIndex: 0, endIndex: 49, label: 'a' },
      { startIndex: 50, endIndex: 79, label: 'b' },
      { startIndex: 80, endIndex: 99, label: 'rest' },
    ]);
  });

  it('drops events with no rows and clips events past the end of a source that stopped early', () => {
    const m = new EventMarks(1);
    m.mark('empty', 100, [10]);
    m.mark('late', 100, [10]); // same instant: "empty" holds no row
    m.mark(null, 900, [90]);
    m.mark('after', 950, [95]);
    // The source dropped out at row 60 (incomplete sample): "late" is clipped, "after" is gone.
    expect(m.structuredLabels(0, 60, null)).toEqual([{ startIndex: 10, endIndex: 59, label: 'late' }]);
  });

  it('has nothing to say without events, and refuses to end an event that is not open', () => {
    const m = new EventMarks(1);
    expect(m.structuredLabels(0, 100, 'idle')).toBeNull();
    expect(() => m.mark(null, 10, [1])).toThrow(CoreError);
    expect(() => m.mark(null, 10, [1])).toThrow(/No event is open/);
  });
});
