// The live strip's words (issue 28): each stretch of one label says it in text, so colour is
// never the only way to tell labels apart; the e2e colour test reads what the canvas drew.
import { describe, expect, it } from 'vitest';
import type { LiveWindow } from '../../../src-renderer/lib/models/live-verdicts.js';
import { runText, stripRuns, type StripPiece } from '../../../src-renderer/lib/models/strip-layout.js';

const piece = (left: number, width: number, shown: string | null): StripPiece => ({
  left,
  width,
  window: { index: left, startMs: 0, endMs: 0, top: shown, confidence: 0.9, scores: {}, uncertain: shown === null, shown, shownConfidence: 0.9 } satisfies LiveWindow,
});
const sevenPerChar = (t: string) => 7 * t.length;

describe('the live strip in words', () => {
  it('joins neighbouring pieces of one label into a stretch; a gap or another label starts a new one', () => {
    const runs = stripRuns([piece(0, 10, 'idle'), piece(10, 10, 'idle'), piece(21, 9, 'idle'), piece(30, 5, 'wave'), piece(35, 5, null), piece(60, 10, null)]);
    expect(runs).toEqual([
      { left: 0, width: 30, label: 'idle' }, // a 1 px rounding gap still joins
      { left: 30, width: 5, label: 'wave' },
      { left: 35, width: 5, label: null },
      { left: 60, width: 10, label: null }, // a skipped window between: two stretches
    ]);
    expect(stripRuns([])).toEqual([]);
  });

  it('writes the label where it fits, else its number in the legend ("?" for uncertain), else nothing', () => {
    const labels = ['idle', 'wave'];
    expect(runText({ left: 0, width: 40, label: 'wave' }, labels, sevenPerChar)).toBe('wave');
    expect(runText({ left: 0, width: 20, label: 'wave' }, labels, sevenPerChar)).toBe('2');
    expect(runText({ left: 0, width: 5, label: 'wave' }, labels, sevenPerChar)).toBe('');
    expect(runText({ left: 0, width: 80, label: null }, labels, sevenPerChar)).toBe('uncertain');
    expect(runText({ left: 0, width: 14, label: null }, labels, sevenPerChar)).toBe('?');
    // A label the legend does not list has no number: its name or nothing.
    expect(runText({ left: 0, width: 20, label: 'shake' }, labels, sevenPerChar)).toBe('');
  });
});
