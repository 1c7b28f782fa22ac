import type { Report, Tested } from './model-report.js';

/**
 * Two models' results on the same samples, made comparable (issue 44, item 3): a sample unfit for
 * either is unfit for both, with each model's reason, so both are judged on the same samples.
 */
export function pairTested(names: readonly [string, string], runs: readonly [readonly Tested[], readonly Tested[]]): [Tested[], Tested[]] {
  const [ra, rb] = runs;
  const a: Tested[] = [];
  const b: Tested[] = [];
  ra.forEach((ta, i) => {
    const tb = rb[i]!;
    const why = [ta, tb].flatMap((t, k) => ('unfit' in t ? [`model "${names[k]}": ${t.unfit}`] : []));
    if (why.length) {
      const unfit = { id: ta.id, unfit: why.join('; ') };
      a.push(unfit);
      b.push(unfit);
    } else {
      a.push(ta);
      b.push(tb);
    }
  });
  return [a, b];
}

/** "fixed": samples B gets right and A got wrong; "broken": the reverse; in A's order. */
export function fixedAndBroken(A: Report, B: Report): { fixed: string[]; broken: string[] } {
  const fixed: string[] = [];
  const broken: string[] = [];
  for (const [id, pa] of A.predictions) {
    const pb = B.predictions.get(id);
    if (!pb) continue;
    if (pb.correct && !pa.correct) fixed.push(id);
    if (pa.correct && !pb.correct) broken.push(id);
  }
  return { fixed, broken };
}
