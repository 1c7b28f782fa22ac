import { UNCERTAIN } from './verdicts.js';

export interface LabelFigures {
  precision: number;
  recall: number;
  f1: number;
  /** Counted samples whose label this is. */
  support: number;
}

export interface ClassificationFigures {
  samples: number;
  accuracy: number;
  /** Counted samples predicted "uncertain". */
  uncertain: number;
  per_label: Record<string, LabelFigures>;
  /** actual → predicted → count: a row per label with support; a column per label of the model, and "uncertain" where it occurs. */
  confusion: Record<string, Record<string, number>>;
}

/** 4 decimal places: enough to read, and the same on every machine. */
const r4 = (x: number): number => Math.round(x * 1e4) / 1e4;
const ratio = (a: number, b: number): number => (b === 0 ? 0 : a / b);

/**
 * The usual figures over counted samples. "uncertain" is never a label: it is never correct, so
 * it lowers the recall of the sample's label and the accuracy, and never any label's precision
 * (it is no label's prediction). A figure that divides by zero is 0.
 */
export function classificationFigures(labels: readonly string[], outcomes: ReadonlyArray<{ actual: string; predicted: string }>): ClassificationFigures {
  const cols = [...labels];
  if (outcomes.some((o) => o.predicted === UNCERTAIN)) cols.push(UNCERTAIN);
  const confusion: Record<string, Record<string, number>> = {};
  for (const l of labels) {
    if (!outcomes.some((o) => o.actual === l)) continue;
    confusion[l] = Object.fromEntries(cols.map((c) => [c, 0]));
  }
  for (const o of outcomes) {
    const row = (confusion[o.actual] ??= Object.fromEntries(cols.map((c) => [c, 0])));
    row[o.predicted] = (row[o.predicted] ?? 0) + 1;
  }
  const per_label: Record<string, LabelFigures> = {};
  for (const l of labels) {
    const tp = outcomes.filter((o) => o.actual === l && o.predicted === l).length;
    const predicted = outcomes.filter((o) => o.predicted === l).length;
    const support = outcomes.filter((o) => o.actual === l).length;
    const precision = ratio(tp, predicted);
    const recall = ratio(tp, support);
    per_label[l] = { precision: r4(precision), recall: r4(recall), f1: r4(ratio(2 * precision * recall, precision + recall)), support };
  }
  const correct = outcomes.filter((o) => o.predicted === o.actual).length;
  return {
    samples: outcomes.length,
    accuracy: r4(ratio(correct, outcomes.length)),
    uncertain: outcomes.filter((o) => o.predicted === UNCERTAIN).length,
    per_label,
    confusion,
  };
}
