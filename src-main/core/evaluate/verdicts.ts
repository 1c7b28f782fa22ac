/**
 * What a model test makes of windows and samples (issue 44): a window's verdict is its top label
 * when that score reaches the threshold, else "uncertain"; two labels sharing the top score are
 * "uncertain" too (exports quantise scores in steps of 1/256, so exact ties happen). A sample's
 * prediction is the verdict most of its windows got; a tie between verdicts, or "uncertain" being
 * the most frequent, is "uncertain".
 */
export const UNCERTAIN = 'uncertain';

export function windowVerdict(scores: Readonly<Record<string, number>>, threshold: number): string {
  let top = -Infinity;
  let label: string | null = null;
  let tied = false;
  for (const [l, v] of Object.entries(scores)) {
    if (v > top) {
      top = v;
      label = l;
      tied = false;
    } else if (v === top) tied = true;
  }
  return label === null || tied || top < threshold ? UNCERTAIN : label;
}

export function samplePrediction(verdicts: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const v of verdicts) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: string = UNCERTAIN;
  let most = 0;
  let tied = false;
  for (const [v, n] of counts) {
    if (n > most) {
      most = n;
      best = v;
      tied = false;
    } else if (n === most) tied = true;
  }
  return tied ? UNCERTAIN : best;
}
