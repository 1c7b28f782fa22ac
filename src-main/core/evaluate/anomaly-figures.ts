export interface Spread {
  min: number;
  median: number;
  max: number;
  samples: number;
}

/** Median of an even count: the mean of the two middle values. */
export function spreadOf(xs: readonly number[]): Spread | null {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const median = s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  // 6 places: (0.52 + 0.6) / 2 is 0.56, not 0.5600000000000001.
  const r6 = (x: number): number => Math.round(x * 1e6) / 1e6;
  return { min: r6(s[0]!), median: r6(median), max: r6(s[s.length - 1]!), samples: s.length };
}

/**
 * Anomaly scores per label: min, median and max of its samples' scores. A sample's score is the
 * highest of its windows' (one odd window is what an anomaly block is there to catch).
 */
export function anomalyByLabel(samples: ReadonlyArray<{ label: string; anomaly: number }>): Record<string, Spread> {
  const by = new Map<string, number[]>();
  for (const s of samples) by.set(s.label, [...(by.get(s.label) ?? []), s.anomaly]);
  return Object.fromEntries([...by].map(([l, xs]) => [l, spreadOf(xs)!]));
}
