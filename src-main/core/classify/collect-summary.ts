import type { Classification, CollectSummary } from '../contract/classify-schema.js';

type LabelRow = CollectSummary['labels'][number];

/** Below this share of windows right, a label is one to collect more of. */
const GOOD_ENOUGH = 0.8;
const MAX_CONFUSIONS = 10;

/**
 * The "collect more of" view: per label, the takes collected and what the model made of their
 * windows (each take's newest kept classification, its first learn block with labels).
 */
export function collectSummary(
  takes: Array<{ id: string; label: string | null }>,
  kept: Map<string, Classification>,
  scope: { since: string | null; sessionId: string | null },
): CollectSummary {
  const rows = new Map<string | null, LabelRow>();
  const row = (label: string | null): LabelRow => {
    let r = rows.get(label);
    if (!r) rows.set(label, (r = { label, takes: 0, classifiedTakes: 0, windows: 0, agree: 0, windowsClassifiedAs: 0 }));
    return r;
  };
  const confusions = new Map<string, { expected: string; predicted: string; windows: number }>();
  let classifiedTakes = 0;
  for (const t of takes) {
    const r = row(t.label);
    r.takes++;
    const c = kept.get(t.id);
    const block = c?.blocks.find((b) => b.labels.length > 0);
    if (!block) continue;
    r.classifiedTakes++;
    classifiedTakes++;
    for (const w of block.windows) {
      if (w.label === null) continue;
      r.windows++;
      row(w.label).windowsClassifiedAs++;
      if (w.label === t.label) r.agree++;
      else if (t.label !== null) {
        const key = JSON.stringify([t.label, w.label]);
        const e = confusions.get(key) ?? { expected: t.label, predicted: w.label, windows: 0 };
        e.windows++;
        confusions.set(key, e);
      }
    }
  }
  const labels = [...rows.values()].sort((a, b) => b.takes - a.takes || (a.label ?? '\uffff').localeCompare(b.label ?? '\uffff'));
  const pairs = [...confusions.values()].sort((a, b) => b.windows - a.windows || a.expected.localeCompare(b.expected) || a.predicted.localeCompare(b.predicted));
  const collectMoreOf = labels
    .filter((l): l is LabelRow & { label: string } => l.label !== null && l.windows > 0 && l.agree / l.windows < GOOD_ENOUGH)
    .sort((a, b) => a.agree / a.windows - b.agree / b.windows || b.windows - a.windows)
    .map((l) => {
      const worst = pairs.find((p) => p.expected === l.label);
      const often = worst ? `; it most often said ${worst.predicted} (${worst.windows} ${worst.windows === 1 ? 'window' : 'windows'})` : '';
      return { label: l.label, reason: `the model got ${l.agree} of ${l.windows} windows of ${l.label} right${often}` };
    });
  return { since: scope.since, sessionId: scope.sessionId, takes: takes.length, classifiedTakes, labels, confusions: pairs.slice(0, MAX_CONFUSIONS), collectMoreOf };
}
