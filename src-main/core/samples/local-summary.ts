import type { DatasetSummary } from '../contract/contract.js';
import type { SampleStore } from './sample-store.js';

/** Samples captured here and not yet confirmed by the platform, per category × label. */
export function localSummary(store: SampleStore): DatasetSummary {
  const empty = () => ({ itemCount: 0, totalLengthMs: 0, labels: [] as Array<{ label: string; count: number; totalLengthMs: number }> });
  const summary: DatasetSummary = { hasValidation: false, categories: { training: empty(), testing: empty(), validation: empty(), 'post-processing': empty() } };
  const rows = store.db
    .prepare(
      `SELECT category, COALESCE(label, '') AS label, COUNT(*) AS n, COALESCE(SUM(length_ms), 0) AS ms FROM samples
       WHERE state IN ('local', 'queued', 'uploading', 'failed') GROUP BY category, label ORDER BY label`,
    )
    .all() as Array<{ category: string; label: string; n: number; ms: number }>;
  for (const r of rows) {
    // "split" is decided by the platform on arrival; until then it counts under training.
    const key = (r.category === 'split' ? 'training' : r.category) as keyof DatasetSummary['categories'];
    const c = summary.categories[key];
    c.itemCount += r.n;
    c.totalLengthMs += r.ms;
    const existing = c.labels.find((l) => l.label === r.label);
    if (existing) {
      existing.count += r.n;
      existing.totalLengthMs += r.ms;
    } else c.labels.push({ label: r.label, count: r.n, totalLengthMs: r.ms });
  }
  return summary;
}
