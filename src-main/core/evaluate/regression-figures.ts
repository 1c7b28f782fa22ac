/** A regression model's figures over counted samples: mean absolute error and root mean square error (0 for none). */
export function regressionFigures(outcomes: ReadonlyArray<{ actual: number; predicted: number }>): { samples: number; mae: number; rmse: number } {
  const n = outcomes.length;
  if (n === 0) return { samples: 0, mae: 0, rmse: 0 };
  let abs = 0;
  let sq = 0;
  for (const o of outcomes) {
    const e = o.predicted - o.actual;
    abs += Math.abs(e);
    sq += e * e;
  }
  const r6 = (x: number): number => Math.round(x * 1e6) / 1e6;
  return { samples: n, mae: r6(abs / n), rmse: r6(Math.sqrt(sq / n)) };
}

/** A sample's value: the mean of its windows' values. */
export const meanOf = (xs: readonly number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
