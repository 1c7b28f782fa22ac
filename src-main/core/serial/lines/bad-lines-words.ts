/**
 * What came from a port that gave lines but no readings, for the sentence that says so (the live
 * source's and the probe's alike): "1 line came and it was not numbers (…)", never "1 lines".
 */
export function badLinesWords(s: { badLines: number; lastBadLine: string | null }): string {
  const last = JSON.stringify(s.lastBadLine);
  return s.badLines === 1 ? `1 line came and it was not numbers (${last})` : `${s.badLines} lines came but none were numbers (last: ${last})`;
}
