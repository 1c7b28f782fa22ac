/** A known loss inside a take: where (seconds from the take's first sample), how many, how many the board dropped itself. */
export interface TakeGap {
  at_s: number;
  count: number;
  device: number;
  seq: number;
}

/** The gaps (a source's KnownGap, e.g. a Nordic board's) between a part's first and last reading, placed on its time axis (the board's rate). */
export function takeGaps(gaps: ReadonlyArray<{ reading: number; seq: number; count: number; device: number }>, firstReading: number, hz: number): TakeGap[] {
  return gaps.map((g) => ({ at_s: Math.round(((g.reading - firstReading) / hz) * 1000) / 1000, count: g.count, device: g.device, seq: g.seq }));
}

/** "12 samples lost at 3.41 s, 0 dropped by the board" (several: "12 samples lost at 3.41 s and 3 at 7.2 s (15 in all), 4 dropped by the board"). */
export function describeGaps(gaps: readonly TakeGap[]): string {
  if (!gaps.length) return 'no samples lost';
  const lost = gaps.reduce((n, g) => n + g.count, 0);
  const device = gaps.reduce((n, g) => n + g.device, 0);
  const shown = gaps.slice(0, 5).map((g, i) => `${i === 0 ? `${g.count} sample${g.count === 1 ? '' : 's'} lost` : g.count} at ${g.at_s} s`);
  const list = shown.length > 1 ? `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}` : shown[0]!;
  const more = gaps.length > 5 ? `… (${lost} in ${gaps.length} gaps)` : gaps.length > 1 ? ` (${lost} in all)` : '';
  return `${list}${more}, ${device} dropped by the board`;
}
