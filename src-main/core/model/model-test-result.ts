import type { ModelEntry } from '../contract/model-schema.js';
import type { ModelTestFigures, ModelTestResult } from '../contract/model-test-schema.js';
import type { Spread } from '../evaluate/anomaly-figures.js';
import type { LabelFigures } from '../evaluate/confusion.js';
import { fixedAndBroken, pairTested } from '../evaluate/model-comparison.js';
import { modelReport, type ModelKind, type Report } from '../evaluate/model-report.js';
import { toTested, type TestedSample } from './model-test.js';

/** The report's summary as modelReport makes it (classification or regression, anomaly when the model has a block). */
interface Summary {
  accuracy?: number;
  uncertain?: number;
  mae?: number;
  rmse?: number;
  per_label?: Record<string, LabelFigures>;
  confusion?: Record<string, Record<string, number>>;
  anomaly?: Record<string, Spread>;
}

/**
 * One model test (or two models' on the same samples) as models.test answers it: the CLI's
 * figures (modelReport, pairTested, fixedAndBroken), with each counted sample's name and
 * predictions so the app can list a matrix cell's samples.
 */
export function modelTestResult(entries: readonly ModelEntry[], kinds: readonly ModelKind[], runs: ReadonlyArray<readonly TestedSample[]>, o: { threshold: number; strideMs: number | null }): ModelTestResult {
  const samples = runs[0]!.map((t) => t.sample);
  const tested = runs.map((r) => r.map(toTested));
  const paired = entries.length === 2 ? pairTested([entries[0]!.name, entries[1]!.name], [tested[0]!, tested[1]!]) : tested;
  const reports = paired.map((t, k) => modelReport(kinds[k]!, t, o.threshold));
  const first = reports[0]!;
  const nameOf = new Map(samples.map((s) => [s.id, s.name]));
  const { fixed, broken } = reports.length === 2 ? fixedAndBroken(first, reports[1]!) : { fixed: [], broken: [] };
  return {
    threshold: o.threshold,
    matched: samples.length,
    models: entries.map((e, k) => figures(e, kinds[k]!, reports[k]!, runs[k]!, o.strideMs)),
    samples: [...first.predictions].map(([id, p]) => ({
      id,
      name: nameOf.get(id) ?? id,
      label: p.label,
      predicted: reports.map((r) => r.predictions.get(id)!.predicted),
      correct: reports.map((r) => r.predictions.get(id)!.correct),
    })),
    unfit: first.unfit.map((u) => ({ id: u.sample_id, name: nameOf.get(u.sample_id) ?? u.sample_id, reason: u.unfit })),
    fixed,
    broken,
  };
}

function figures(e: ModelEntry, kind: ModelKind, r: Report, run: readonly TestedSample[], strideMs: number | null): ModelTestFigures {
  const s = r.summary as Summary;
  // Counted per model, before pairing: what this model's run did (a sample unfit for the other one was still classified).
  const reused = run.filter((t) => t.unfit === undefined && t.reused).length;
  const classified = run.filter((t) => t.unfit === undefined && !t.reused).length;
  return {
    model: e.name,
    regression: kind.regression,
    labels: [...kind.labels],
    windowMs: e.description.windowMs,
    strideMs: strideMs ?? e.description.windowMs / 4,
    classified,
    reused,
    accuracy: s.accuracy ?? null,
    uncertain: s.uncertain ?? null,
    perLabel: s.per_label ?? {},
    confusion: s.confusion ?? {},
    mae: s.mae ?? null,
    rmse: s.rmse ?? null,
    anomaly: s.anomaly ?? null,
  };
}
