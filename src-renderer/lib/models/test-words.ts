// A model test's result (models.test) as the app shows it: the confusion matrix as a grid of
// cells (counts, a shade for how much of the row each is, right or wrong said in words), the
// samples behind a cell, and the sentences around them. Pure, so it is tested in Node.
import type { ModelTestFigures, ModelTestResult } from '../../../src-main/core/contract/contract.js';
import { MAX_IDS } from '../../../src-main/core/contract/limits.js';

export interface MatrixCell {
  actual: string;
  predicted: string;
  count: number;
  /** Of the row's samples, for the shade: 0 to 1. */
  share: number;
  /** On the diagonal: the model said the label. "uncertain" is never right. */
  right: boolean;
  /** What a screen reader says, and the button's title. */
  words: string;
}

export interface Matrix {
  cols: string[];
  rows: Array<{ actual: string; total: number; cells: MatrixCell[] }>;
}

export const pct = (x: number): string => `${(x * 100).toFixed(1)} %`;
const samples = (n: number): string => `${n} ${n === 1 ? 'sample' : 'samples'}`;

/** The matrix in the core's order: a row per label with samples, a column per model label (and "uncertain" where it occurs). */
export function matrixOf(f: ModelTestFigures): Matrix {
  const entries = Object.entries(f.confusion);
  const cols = entries.length ? Object.keys(entries[0]![1]) : [];
  return {
    cols,
    rows: entries.map(([actual, row]) => {
      const total = Object.values(row).reduce((a, b) => a + b, 0);
      return {
        actual,
        total,
        cells: cols.map((predicted) => {
          const count = row[predicted] ?? 0;
          const right = predicted === actual;
          return {
            actual, predicted, count, right, share: total ? count / total : 0,
            words: `actual ${actual}, predicted ${predicted}: ${samples(count)}${total ? ` (${pct(count / total)} of ${actual})` : ''}${count ? (right ? ', right' : ', wrong') : ''}`,
          };
        }),
      };
    }),
  };
}

/** The chip over the samples table when a cell is shown. */
export const cellChipText = (actual: string, predicted: string): string => `actual ${actual} · predicted ${predicted}`;

/** What a cell's click shows: its chip and ids; a cell of more samples than a filter takes shows its first ones, and its chip says so. */
export function cellShown(text: string, ids: string[]): { text: string; ids: string[] } {
  if (ids.length <= MAX_IDS) return { text, ids };
  return { text: `${text} (the first ${MAX_IDS.toLocaleString('en-US')} of ${ids.length.toLocaleString('en-US')})`, ids: ids.slice(0, MAX_IDS) };
}

/** The samples a cell counts, in the test's order: label `actual`, model k said `predicted`. */
export function cellIds(r: ModelTestResult, k: number, actual: string, predicted: string): string[] {
  return r.samples.filter((s) => s.label === actual && String(s.predicted[k]) === predicted).map((s) => s.id);
}

/** The first line of a model's result. */
export function headline(f: ModelTestFigures, r: ModelTestResult): string {
  const counted = r.samples.length;
  if (f.regression) return `Mean absolute error ${f.mae}, RMSE ${f.rmse} over ${samples(counted)} counted; ${r.unfit.length} unfit.`;
  const k = r.models.indexOf(f);
  const right = r.samples.filter((s) => s.correct[k]).length;
  return `Accuracy ${pct(f.accuracy ?? 0)}: ${right} of ${samples(counted)} counted right; ${f.uncertain ?? 0} uncertain; ${r.unfit.length} unfit.`;
}

/** What the run did with the kept results: the point of keeping them is not to classify again. */
export function reuseText(f: ModelTestFigures): string {
  const kept = `${f.reused} kept ${f.reused === 1 ? 'result' : 'results'} of the same build, stride, threshold and sample content reused`;
  return `Classified ${samples(f.classified)} (windows of ${f.windowMs} ms every ${f.strideMs} ms); ${kept}.`;
}

export interface Difference {
  id: string;
  name: string;
  text: string;
}

/** Two models: the samples the second fixed and broke, each with what both said. */
export function differences(r: ModelTestResult): { fixed: Difference[]; broken: Difference[] } {
  const [a, b] = r.models.map((m) => m.model);
  const byId = new Map(r.samples.map((s) => [s.id, s]));
  const line = (id: string): Difference => {
    const s = byId.get(id)!;
    return { id, name: s.name, text: `${s.name}: ${s.label}; "${a}" said ${s.predicted[0]}, "${b}" said ${s.predicted[1]}` };
  };
  return { fixed: r.fixed.map(line), broken: r.broken.map(line) };
}

/**
 * The progress bar's words. The core counts sample tests, one per sample and model, so with two
 * models "18 of 18" would read as 18 samples when there are 9: say both.
 */
export function testProgressText(done: number, total: number, models: number): string {
  if (models < 2 || total % models !== 0) return `${done} of ${total}`;
  return `${done} of ${total} sample tests (${samples(total / models)}, each by ${models} models)`;
}
