import type { BalanceCounts, BalanceLabel, ClassBalance, DatasetSummary, SampleState } from '../contract/contract.js';
import type { Db } from './db.js';

type CategoryKey = keyof ClassBalance['categories'];
const CATEGORIES: CategoryKey[] = ['training', 'testing', 'validation', 'post-processing'];
type Bucket = 'uploaded' | 'queued' | 'local' | 'failed';
const BUCKET: Record<SampleState, Bucket> = { uploaded: 'uploaded', queued: 'queued', uploading: 'queued', local: 'local', failed: 'failed', rejected: 'failed' };

/** One GROUP BY over the covering index samples_by_category: 50,000 samples cost a few milliseconds. */
const COUNTS = `SELECT category, label, state, count(*) AS n, coalesce(sum(length_ms), 0) AS ms FROM samples GROUP BY category, label, state`;

interface Tally {
  uploaded: number;
  queued: number;
  local: number;
  failed: number;
  ms: number;
  platform: { count: number; totalLengthMs: number } | null;
}

const nf = (n: number) => n.toLocaleString('en-US');

/**
 * The class balance as this data folder knows it, with or without the platform (issue 22): every
 * sample counted once, by category × label and by where it is, from the index alone, so a
 * platform that cannot be reached changes nothing but the platform's column. When `platform` is
 * given, its count stands beside each row with the difference to what was uploaded from here said
 * in words. Unlabeled samples are the row with label null; the platform lists labelled ones only,
 * so its unlabeled count is its total less its labels.
 */
export function classBalance(db: Db, platform: DatasetSummary | null, platformError: string | null): ClassBalance {
  const rows = db.prepare(COUNTS).all() as Array<{ category: string; label: string | null; state: SampleState; n: number; ms: number }>;
  const empty = (): Tally => ({ uploaded: 0, queued: 0, local: 0, failed: 0, ms: 0, platform: null });
  const cats = new Map<CategoryKey, Map<string | null, Tally>>(CATEGORIES.map((c) => [c, new Map()]));
  for (const r of rows) {
    // "split" is decided by the platform on arrival; until then it counts under training.
    const cat = (r.category === 'split' ? 'training' : r.category) as CategoryKey;
    const labels = cats.get(cat);
    if (!labels) continue;
    const t = labels.get(r.label) ?? empty();
    t[BUCKET[r.state]] += r.n;
    t.ms += r.ms;
    labels.set(r.label, t);
  }
  if (platform) {
    for (const cat of CATEGORIES) {
      const p = platform.categories[cat];
      const labels = cats.get(cat)!;
      let labelled = 0;
      let labelledMs = 0;
      for (const l of p.labels) {
        const t = labels.get(l.label) ?? empty();
        t.platform = { count: l.count, totalLengthMs: l.totalLengthMs };
        labels.set(l.label, t);
        labelled += l.count;
        labelledMs += l.totalLengthMs;
      }
      const rest = { count: Math.max(0, p.itemCount - labelled), totalLengthMs: Math.max(0, p.totalLengthMs - labelledMs) };
      // Every local row gets the platform's number (0 when it has none of that label).
      for (const [label, t] of labels) t.platform ??= label === null ? rest : { count: 0, totalLengthMs: 0 };
      if (rest.count > 0 && !labels.has(null)) labels.set(null, { ...empty(), platform: rest });
    }
  }

  const byLabel = new Map<string | null, Tally>();
  const categories = {} as ClassBalance['categories'];
  const sum = (into: Tally, t: Tally) => {
    into.uploaded += t.uploaded;
    into.queued += t.queued;
    into.local += t.local;
    into.failed += t.failed;
    into.ms += t.ms;
    if (t.platform) {
      into.platform ??= { count: 0, totalLengthMs: 0 };
      into.platform.count += t.platform.count;
      into.platform.totalLengthMs += t.platform.totalLengthMs;
    }
  };
  const reached = platform !== null;
  const all = empty();
  if (reached) all.platform = { count: 0, totalLengthMs: 0 };
  for (const cat of CATEGORIES) {
    const total = empty();
    if (reached) total.platform = { count: 0, totalLengthMs: 0 };
    const labels: BalanceLabel[] = [];
    for (const [label, t] of [...cats.get(cat)!].sort(byLabelName)) {
      sum(total, t);
      const across = byLabel.get(label) ?? (reached ? { ...empty(), platform: { count: 0, totalLengthMs: 0 } } : empty());
      sum(across, t);
      byLabel.set(label, across);
      labels.push({ label, ...counts(t) });
    }
    sum(all, total);
    categories[cat] = { ...counts(total), labels };
  }
  const a = counts(all);
  return {
    categories,
    labels: [...byLabel].sort(byLabelName).map(([label, t]) => ({ label, ...counts(t) })),
    all: a,
    platformReached: reached,
    platformError: reached ? null : platformError,
    summary: summaryOf(a, reached ? null : platformError),
  };
}

function byLabelName([a]: [string | null, unknown], [b]: [string | null, unknown]): number {
  if (a === b) return 0;
  if (a === null) return 1; // unlabeled last
  if (b === null) return -1;
  return a.localeCompare(b);
}

function counts(t: Tally): BalanceCounts {
  const difference = t.platform ? t.platform.count - t.uploaded : null;
  return {
    uploaded: t.uploaded,
    queued: t.queued,
    local: t.local,
    failed: t.failed,
    total: t.uploaded + t.queued + t.local + t.failed,
    totalLengthMs: t.ms,
    platform: t.platform ? { ...t.platform } : null,
    difference,
    differenceText: difference === null ? null : differenceText(difference, t.uploaded),
  };
}

/** The platform's count against what this folder uploaded, in words. */
export function differenceText(difference: number, uploaded: number): string {
  if (difference > 0) return `${nf(difference)} more on the platform than uploaded from here (added there or from another computer)`;
  if (difference < 0) return `${nf(-difference)} fewer on the platform than uploaded from here (deleted or moved to another category there)`;
  return uploaded === 0 ? 'none on the platform, none uploaded from here' : 'the same as uploaded from here';
}

function summaryOf(a: BalanceCounts, unreachable: string | null): string {
  const parts = [`${nf(a.uploaded)} uploaded`, `${nf(a.queued)} queued`, `${nf(a.local)} local`, ...(a.failed ? [`${nf(a.failed)} not accepted (failed or refused)`] : [])];
  const here = `${nf(a.total)} sample${a.total === 1 ? '' : 's'} in this data folder: ${parts.join(', ')}.`;
  if (a.platform) {
    return `${here} The platform has ${nf(a.platform.count)}: ${differenceText(a.difference ?? 0, a.uploaded)}.`;
  }
  return `${here} The platform's own numbers are not shown${unreachable ? ` (${unreachable.replace(/\.$/, '')})` : ''}; uploaded counts what it confirmed to this computer.`;
}
