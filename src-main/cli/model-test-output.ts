import type { ModelEntry } from '../core/contract/model-schema.js';
import type { Spread } from '../core/evaluate/anomaly-figures.js';
import type { LabelFigures } from '../core/evaluate/confusion.js';
import type { ModelKind, Report } from '../core/evaluate/model-report.js';

/** `model test` without --json: tables for a terminal (right-aligned numbers, labels in words). */

interface Context {
  what: string;
  threshold: number;
  names: Map<string, string>;
}

const pct = (x: number): string => `${(x * 100).toFixed(1)} %`;
const f4 = (x: number): string => x.toFixed(4);
const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/** Columns padded to their widest cell; the first left-aligned, the rest right-aligned. */
function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd());
}

function matrix(confusion: Record<string, Record<string, number>>): string[] {
  const rows = Object.entries(confusion);
  if (!rows.length) return ['(no samples counted)'];
  const cols = Object.keys(rows[0]![1]);
  return table([['actual ↓  predicted →', ...cols], ...rows.map(([actual, row]) => [actual, ...cols.map((c) => String(row[c] ?? 0))])]);
}

function perLabel(figures: Record<string, LabelFigures>): string[] {
  return table([['label', 'precision', 'recall', 'F1', 'support'], ...Object.entries(figures).map(([l, f]) => [l, f4(f.precision), f4(f.recall), f4(f.f1), String(f.support)])]);
}

function anomalyTable(by: Record<string, Spread>): string[] {
  return [
    'Anomaly score per label (each sample\'s highest window):',
    ...table([['label', 'min', 'median', 'max', 'samples'], ...Object.entries(by).map(([l, s]) => [l, s.min.toFixed(3), s.median.toFixed(3), s.max.toFixed(3), String(s.samples)])]),
  ];
}

/** The summary's figures as modelReport makes them (classification or regression, with anomaly when the model has a block). */
interface Summary {
  accuracy: number;
  uncertain: number;
  mae: number;
  rmse: number;
  per_label: Record<string, LabelFigures>;
  confusion: Record<string, Record<string, number>>;
  anomaly?: Record<string, Spread>;
}
const summaryOf = (r: Report): Summary => r.summary as unknown as Summary;

const nameOf = (c: Context, id: string): string => `"${c.names.get(id) ?? id}" (${id})`;

function unfitLines(c: Context, r: Report): string[] {
  if (!r.unfit.length) return [];
  return ['', `Unfit, not counted (${r.unfit.length}):`, ...r.unfit.map((u) => `  ${nameOf(c, u.sample_id)}: ${u.unfit}`)];
}

export function humanReport(entry: ModelEntry, kind: ModelKind, r: Report, c: Context & { strideMs: number }): string {
  const s = summaryOf(r);
  const counted = r.predictions.size;
  const out = [`Model "${entry.name}"${kind.regression ? ' (regression)' : ''}, ${counted + r.unfit.length} ${c.what} (windows of ${entry.description.windowMs} ms every ${c.strideMs} ms${kind.regression ? '' : `, uncertain below ${c.threshold}`}):`];
  if (kind.regression) {
    out.push(`Mean absolute error ${s.mae}, RMSE ${s.rmse} over ${plural(counted, 'counted sample', 'counted samples')}; ${r.unfit.length} unfit.`);
  } else {
    const correct = [...r.predictions.values()].filter((p) => p.correct).length;
    out.push(`Accuracy ${pct(s.accuracy)} (${correct} of ${plural(counted, 'counted sample', 'counted samples')}; ${s.uncertain} uncertain); ${r.unfit.length} unfit.`, '');
    out.push(...matrix(s.confusion), '', ...perLabel(s.per_label));
    const wrong = [...r.predictions].filter(([, p]) => !p.correct);
    if (wrong.length) out.push('', `Wrong (${wrong.length}):`, ...wrong.map(([id, p]) => `  ${nameOf(c, id)}: ${p.label}, predicted ${p.predicted}`));
  }
  if (s.anomaly) out.push('', ...anomalyTable(s.anomaly));
  out.push(...unfitLines(c, r));
  return out.join('\n') + '\n';
}

export function humanTwo(entries: [ModelEntry, ModelEntry], kinds: [ModelKind, ModelKind], reports: [Report, Report], c: Context & { fixed: string[]; broken: string[]; strideMs: number | null }): string {
  const [a, b] = entries;
  const [A] = reports;
  const counted = A.predictions.size;
  const out = [`Models "${a.name}" and "${b.name}", ${counted + A.unfit.length} ${c.what} (uncertain below ${c.threshold}; ${plural(counted, 'sample', 'samples')} counted for both, ${A.unfit.length} unfit for either):`];
  reports.forEach((r, i) => {
    const s = summaryOf(r);
    const e = entries[i]!;
    const correct = [...r.predictions.values()].filter((p) => p.correct).length;
    out.push('', `Model "${e.name}" (windows of ${e.description.windowMs} ms every ${c.strideMs ?? e.description.windowMs / 4} ms${kinds[i]!.hasAnomaly ? ', anomaly block' : ''}): accuracy ${pct(s.accuracy)} (${correct} of ${counted}; ${s.uncertain} uncertain)`, '');
    out.push(...matrix(s.confusion), '', ...perLabel(s.per_label));
  });
  const list = (ids: string[]): string[] => ids.map((id) => {
    const pa = reports[0].predictions.get(id)!;
    const pb = reports[1].predictions.get(id)!;
    return `  ${nameOf(c, id)}: ${pa.label}; "${a.name}" said ${pa.predicted}, "${b.name}" said ${pb.predicted}`;
  });
  out.push('', `Fixed: right with "${b.name}", wrong with "${a.name}" (${c.fixed.length}):`, ...list(c.fixed));
  out.push('', `Broken: right with "${a.name}", wrong with "${b.name}" (${c.broken.length}):`, ...list(c.broken));
  out.push(...unfitLines(c, A));
  return out.join('\n') + '\n';
}
