import type { ClassifiedWindow } from '../contract/classify-schema.js';
import { anomalyByLabel, type Spread } from './anomaly-figures.js';
import { classificationFigures, type ClassificationFigures } from './confusion.js';
import { meanOf, regressionFigures } from './regression-figures.js';
import { samplePrediction, windowVerdict } from './verdicts.js';

/** One tested sample as the report needs it: counted (its windows) or unfit (why). */
export type Tested = { id: string; label: string; windows: readonly ClassifiedWindow[] } | { id: string; unfit: string };

export interface ModelKind {
  regression: boolean;
  hasAnomaly: boolean;
  labels: readonly string[];
}

/** The per-sample lines and the summary of `model test --json` (the shapes are in its help and the manual). */
export interface Report {
  samples: Array<Record<string, unknown>>;
  unfit: Array<{ sample_id: string; unfit: string }>;
  summary: Record<string, unknown>;
  /** Counted samples: what each was predicted, for the two-model comparison and the human table. */
  predictions: Map<string, { label: string; predicted: string | number; correct: boolean | null }>;
}

const r6 = (x: number): number => Math.round(x * 1e6) / 1e6;

/** A sample's anomaly score: the highest of its windows' (null when the model has no anomaly block). */
export function sampleAnomaly(windows: readonly ClassifiedWindow[]): number | null {
  const xs = windows.flatMap((w) => (w.anomaly === null ? [] : [w.anomaly]));
  return xs.length ? Math.max(...xs) : null;
}

/** A regression window's value: its one score (the export names it like a label). */
const windowValue = (w: ClassifiedWindow): number => Object.values(w.scores)[0] ?? 0;

export function modelReport(kind: ModelKind, tested: readonly Tested[], threshold: number): Report {
  const samples: Report['samples'] = [];
  const unfit: Report['unfit'] = [];
  const predictions: Report['predictions'] = new Map();
  const outcomes: Array<{ actual: string; predicted: string }> = [];
  const values: Array<{ actual: number; predicted: number }> = [];
  const anomalies: Array<{ label: string; anomaly: number }> = [];
  for (const t of tested) {
    if ('unfit' in t) {
      unfit.push({ sample_id: t.id, unfit: t.unfit });
      continue;
    }
    const anomaly = kind.hasAnomaly ? sampleAnomaly(t.windows) : null;
    if (anomaly !== null) anomalies.push({ label: t.label, anomaly });
    const extra = kind.hasAnomaly ? { anomaly } : {};
    if (kind.regression) {
      const predicted = r6(meanOf(t.windows.map(windowValue)));
      const actual = Number(t.label);
      values.push({ actual, predicted });
      predictions.set(t.id, { label: t.label, predicted, correct: null });
      samples.push({ sample_id: t.id, label: t.label, predicted, windows: t.windows.length, error: r6(predicted - actual), ...extra });
    } else {
      const predicted = samplePrediction(t.windows.map((w) => windowVerdict(w.scores, threshold)));
      const correct = predicted === t.label;
      outcomes.push({ actual: t.label, predicted });
      predictions.set(t.id, { label: t.label, predicted, correct });
      samples.push({ sample_id: t.id, label: t.label, predicted, windows: t.windows.length, correct, ...extra });
    }
  }
  let summary: Record<string, unknown>;
  if (kind.regression) {
    const f = regressionFigures(values);
    summary = { samples: f.samples, mae: f.mae, rmse: f.rmse, unfit: unfit.length };
  } else {
    const f: ClassificationFigures = classificationFigures(kind.labels, outcomes);
    summary = { samples: f.samples, accuracy: f.accuracy, uncertain: f.uncertain, unfit: unfit.length, per_label: f.per_label, confusion: f.confusion };
  }
  if (kind.hasAnomaly) summary['anomaly'] = anomalyByLabel(anomalies) satisfies Record<string, Spread>;
  return { samples, unfit, summary, predictions };
}
