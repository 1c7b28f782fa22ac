import { describe, expect, it } from 'vitest';
import { SHORTCUTS } from '../../../src-renderer/lib/capture/capture-keys.js';
import { clampStart, focusAfterRemove, timeOrder, windowKeyAction, windowName } from '../../../src-renderer/lib/review/window-keys.js';

const key = (k: string, o: { shift?: boolean; ctrl?: boolean; repeat?: boolean } = {}) => ({ key: k, shiftKey: !!o.shift, ctrlKey: !!o.ctrl, altKey: false, metaKey: false, repeat: !!o.repeat });

describe('split windows from the keyboard', () => {
  it('arrows move by 10 ms, Shift+arrows by 100 ms; Delete/Backspace remove, Space/Enter play', () => {
    expect(windowKeyAction(key('ArrowLeft'))).toEqual({ kind: 'move', byMs: -10 });
    expect(windowKeyAction(key('ArrowRight'))).toEqual({ kind: 'move', byMs: 10 });
    expect(windowKeyAction(key('ArrowLeft', { shift: true }))).toEqual({ kind: 'move', byMs: -100 });
    expect(windowKeyAction(key('ArrowRight', { shift: true, repeat: true }))).toEqual({ kind: 'move', byMs: 100 });
    expect(windowKeyAction(key('Delete'))).toEqual({ kind: 'remove' });
    expect(windowKeyAction(key('Backspace'))).toEqual({ kind: 'remove' });
    expect(windowKeyAction(key(' '))).toEqual({ kind: 'play' });
    expect(windowKeyAction(key('Enter'))).toEqual({ kind: 'play' });
  });

  it('leaves other keys, modified keys and a held Delete to the rest of the view', () => {
    expect(windowKeyAction(key('ArrowUp'))).toBeNull();
    expect(windowKeyAction(key('s'))).toBeNull();
    expect(windowKeyAction(key('ArrowLeft', { ctrl: true }))).toBeNull();
    expect(windowKeyAction(key('Delete', { repeat: true }))).toBeNull();
  });

  it('keeps a window inside the sample, its length unchanged', () => {
    expect(clampStart(500, 1000, 10_000)).toBe(500);
    expect(clampStart(-10, 1000, 10_000)).toBe(0);
    expect(clampStart(9500, 1000, 10_000)).toBe(9000);
    // A window longer than the sample starts at 0, never before it.
    expect(clampStart(300, 12_000, 10_000)).toBe(0);
  });

  it('visits windows along the time axis, also after one was moved past another', () => {
    expect(timeOrder([{ startMs: 0 }, { startMs: 2000 }, { startMs: 4000 }])).toEqual([0, 1, 2]);
    expect(timeOrder([{ startMs: 2500 }, { startMs: 2000 }, { startMs: 4000 }])).toEqual([1, 0, 2]);
    expect(timeOrder([{ startMs: 100 }, { startMs: 100 }])).toEqual([0, 1]);
  });

  it('after a removal focuses the next window in time, else the previous, else none', () => {
    expect(focusAfterRemove([0, 1, 2], 1)).toBe(1); // old window 2, now at index 1
    expect(focusAfterRemove([0, 1, 2], 2)).toBe(1); // the last: the previous one
    expect(focusAfterRemove([1, 0, 2], 1)).toBe(0); // next in time is index 0, below the removed one
    expect(focusAfterRemove([2, 0, 1], 0)).toBe(0); // next in time is old index 1, now 0
    expect(focusAfterRemove([0], 0)).toBe(-1);
  });

  it('names a window by its number and times; the shortcut sheet lists the steps', () => {
    expect(windowName(2, { startMs: 1200, endMs: 2200 })).toBe('Window 3: 1.20 s – 2.20 s');
    const split = SHORTCUTS.find((g) => g.group.startsWith('Split'))!;
    expect(split.keys.map((k) => k.what)).toEqual(expect.arrayContaining(['Move the window by 10 ms', 'Move the window by 100 ms', 'Remove the window']));
  });
});
