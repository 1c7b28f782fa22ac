import type { ClassificationSummary, ClassifiedWindow } from '../contract/classify-schema.js';

// Apart from classify-result.ts (which parses the platform's answers with zod) so that a model
// worker, which summarizes each sample it classifies, does not load zod at every start.

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;
const round2 = (x: number): string => x.toFixed(2);

/**
 * The summary line the CLI and the app both print, e.g.
 * "wave: 7 of 9 windows, mean confidence 0.91; 2 windows say idle".
 */
export function summarize(windows: ClassifiedWindow[], expected: string | null, labels: string[] = [], minConf: number | null = null): ClassificationSummary {
  const byLabel: Record<string, number> = {};
  for (const w of windows) if (w.label !== null) byLabel[w.label] = (byLabel[w.label] ?? 0) + 1;
  const order = (l: string): number => (labels.includes(l) ? labels.indexOf(l) : labels.length);
  const ranked = Object.entries(byLabel).sort((x, y) => y[1] - x[1] || order(x[0]) - order(y[0]) || x[0].localeCompare(y[0]));
  const lead = expected ?? ranked[0]?.[0] ?? null;
  const said = windows.filter((w) => lead !== null && w.label === lead);
  const meanConfidence = said.length ? said.reduce((s, w) => s + (w.confidence ?? 0), 0) / said.length : null;
  const uncertain = windows.filter((w) => w.uncertain).length;
  const anomalies = windows.flatMap((w) => (w.anomaly === null ? [] : [w.anomaly]));
  const maxAnomaly = anomalies.length ? Math.max(...anomalies) : null;

  const parts: string[] = [];
  if (windows.length === 0) parts.push('no windows classified');
  else if (lead === null) parts.push(`${plural(windows.length, 'window', 'windows')}, no labels`);
  else {
    parts.push(`${lead}: ${said.length} of ${plural(windows.length, 'window', 'windows')}${meanConfidence === null ? '' : `, mean confidence ${round2(meanConfidence)}`}`);
    const others = ranked.filter(([l]) => l !== lead);
    if (others.length) parts.push(others.map(([l, n]) => `${plural(n, 'window says', 'windows say')} ${l}`).join(', '));
  }
  if (uncertain) parts.push(`${uncertain} uncertain (below ${minConf ?? '?'})`);
  if (maxAnomaly !== null) parts.push(`anomaly up to ${round2(maxAnomaly)}`);
  return {
    windows: windows.length,
    byLabel,
    expected,
    agree: expected === null ? null : (byLabel[expected] ?? 0),
    lead,
    meanConfidence,
    uncertain,
    maxAnomaly,
    text: parts.join('; '),
  };
}
