// The class balance as rows to draw: labels down, categories across, each cell what this data
// folder knows (uploaded / queued / local / failed) with the platform's count beside it. The core
// counts (dataset.summary's `balance`); this only arranges its numbers and words them.
import type { BalanceCounts, ClassBalance } from '../../../src-main/core/contract/contract.js';

export type BalanceColumn = keyof ClassBalance['categories'];
const ALL: BalanceColumn[] = ['training', 'testing', 'validation', 'post-processing'];

export interface BalanceRow {
  /** null = unlabeled samples. */
  label: string | null;
  /** What the row says: the label, or "unlabeled". */
  name: string;
  /** Per category shown. */
  cells: Record<BalanceColumn, BalanceCounts>;
  /** Every category together (the core's per-label row). */
  all: BalanceCounts;
  /** The user's target count, if set (never for unlabeled samples). */
  target: number | null;
  /** What counts towards the target: see `towardsTarget`. */
  progress: number;
}

export interface BalanceDifference {
  label: string | null;
  category: BalanceColumn;
  /** The core's words, e.g. "12 more on the platform than uploaded from here (…)". */
  text: string;
}

export interface BalanceTable {
  columns: BalanceColumn[];
  rows: BalanceRow[];
  totals: Record<BalanceColumn, BalanceCounts>;
  all: BalanceCounts;
  /** Every label × category where the platform's count is not what was uploaded from here. */
  differences: BalanceDifference[];
  platformReached: boolean;
  /** Why the platform's numbers are missing, said once beside the table; null when reached. */
  platformError: string | null;
  /** The sentence at the top (without the platform's error: that has its own notice). */
  summary: string;
}

/** A row or cell with nothing in it: a target's label not recorded yet, or a category it lacks. */
function none(platformReached: boolean): BalanceCounts {
  return {
    uploaded: 0, queued: 0, local: 0, failed: 0, total: 0, totalLengthMs: 0,
    platform: platformReached ? { count: 0, totalLengthMs: 0 } : null,
    difference: platformReached ? 0 : null,
    differenceText: null,
  };
}

/**
 * Samples of a label that count towards its target: the ones this folder has, failed ones aside
 * (the platform refused or never got them; they may never count), plus the ones the platform has
 * beyond what was uploaded from here (recorded on another computer or added there). Samples
 * deleted on the platform (a negative difference) are not taken away: the folder still has them,
 * and knows no better which ones. Offline the platform adds nothing it could not confirm.
 */
export function towardsTarget(c: BalanceCounts): number {
  return c.total - c.failed + Math.max(0, c.difference ?? 0);
}

/**
 * `targets` adds rows for labels not recorded yet: they are exactly what to record next.
 * `hasValidation`: the project uses a validation set (the platform said so), so its column shows
 * even while empty. Training and testing always show: an empty testing column is itself worth seeing.
 */
export function balanceTable(balance: ClassBalance, targets: Record<string, number> = {}, hasValidation = false): BalanceTable {
  const reached = balance.platformReached;
  const used = (c: BalanceColumn) => balance.categories[c].total > 0 || (balance.categories[c].platform?.count ?? 0) > 0;
  const columns = ALL.filter((c) => c === 'training' || c === 'testing' || used(c) || (c === 'validation' && hasValidation));

  const labels = [...balance.labels];
  for (const label of Object.keys(targets)) {
    if (!labels.some((l) => l.label === label)) labels.push({ label, ...none(reached) });
  }
  // Labels A→Z, unlabeled last (the core's order, kept once target-only labels join).
  labels.sort((a, b) => (a.label === b.label ? 0 : a.label === null ? 1 : b.label === null ? -1 : a.label.localeCompare(b.label)));

  const rows = labels.map(({ label, ...all }): BalanceRow => {
    const cells = Object.fromEntries(
      ALL.map((c) => {
        const found = balance.categories[c].labels.find((l) => l.label === label);
        if (!found) return [c, none(reached)];
        const { label: _, ...counts } = found;
        return [c, counts];
      }),
    ) as Record<BalanceColumn, BalanceCounts>;
    return {
      label,
      name: label ?? 'unlabeled',
      cells,
      all,
      target: label === null ? null : (targets[label] ?? null),
      progress: towardsTarget(all),
    };
  });

  const differences: BalanceDifference[] = [];
  for (const r of rows) {
    for (const c of ALL) {
      const cell = r.cells[c];
      if (cell.difference && cell.differenceText) differences.push({ label: r.label, category: c, text: cell.differenceText });
    }
  }
  const totals = Object.fromEntries(ALL.map((c) => [c, withoutLabels(balance.categories[c])])) as Record<BalanceColumn, BalanceCounts>;
  return {
    columns, rows, totals, all: balance.all, differences,
    platformReached: reached,
    platformError: reached ? null : balance.platformError,
    summary: withoutError(balance.summary, reached ? null : balance.platformError),
  };
}

function withoutLabels(c: ClassBalance['categories'][BalanceColumn]): BalanceCounts {
  const { labels: _, ...counts } = c;
  return counts;
}

/**
 * The core's sentence names the platform's error in brackets; the panel says it in its own notice,
 * so it is taken out here to say it once. Only that exact text goes: any other wording stays as is.
 */
function withoutError(summary: string, error: string | null): string {
  if (!error) return summary;
  return summary.replace(` (${error.replace(/\.$/, '')})`, '');
}

export type PartKind = 'uploaded' | 'queued' | 'local' | 'failed';
export interface BreakdownPart {
  kind: PartKind;
  n: number;
  /** Short, for the cell: "120 ↑", "3 queued". */
  short: string;
  /** In words, for descriptions: "120 uploaded". */
  words: string;
}

const nf = (n: number) => n.toLocaleString('en-US');

/** Where a cell's samples are, the parts that are not 0 (the cell's total says the rest). */
export function breakdown(c: BalanceCounts): BreakdownPart[] {
  const parts: BreakdownPart[] = [];
  if (c.uploaded) parts.push({ kind: 'uploaded', n: c.uploaded, short: `${nf(c.uploaded)} ↑`, words: `${nf(c.uploaded)} uploaded` });
  if (c.queued) parts.push({ kind: 'queued', n: c.queued, short: `${nf(c.queued)} queued`, words: `${nf(c.queued)} queued` });
  if (c.local) parts.push({ kind: 'local', n: c.local, short: `${nf(c.local)} local`, words: `${nf(c.local)} local, not queued` });
  if (c.failed) parts.push({ kind: 'failed', n: c.failed, short: `${nf(c.failed)} failed`, words: `${nf(c.failed)} failed or refused` });
  return parts;
}

/** The name of a cell's button: what clicking it shows. category null = every category. */
export function showName(row: Pick<BalanceRow, 'label'>, counts: BalanceCounts, category: BalanceColumn | null): string {
  const what = row.label === null ? 'unlabeled' : row.label;
  const n = counts.total;
  const samples = `${nf(n)} ${what} sample${n === 1 ? '' : 's'}`;
  return category ? `Show the ${samples} in ${category}` : `Show the ${samples} (every category)`;
}

/**
 * A cell's visible text, in reading order ("1,204, 1,200 ↑, 3 queued, platform 1,212 +12"): its
 * button's name starts with it, so the name holds what is seen (WCAG 2.5.3, label in name).
 */
export function cellShort(c: BalanceCounts): string {
  const platform = c.platform ? [`platform ${nf(c.platform.count)}${c.difference ? ` ${differenceMark(c)}` : ''}`] : [];
  return [nf(c.total), ...breakdown(c).map((p) => p.short), ...platform].join(', ');
}

/** A cell in words, for its description and tooltip: where its samples are and what the platform has. */
export function cellWords(c: BalanceCounts): string {
  const parts = breakdown(c).map((p) => p.words);
  const here = parts.length ? `${parts.join(', ')}.` : 'None here.';
  if (!c.platform) return here;
  const diff = c.difference && c.differenceText ? `: ${c.differenceText}` : '';
  return `${here} The platform has ${nf(c.platform.count)}${diff}.`;
}

/** The platform's difference, short, beside its count: "+12", "−3", or '' when the same. */
export function differenceMark(c: BalanceCounts): string {
  if (!c.difference) return '';
  return c.difference > 0 ? `+${nf(c.difference)}` : `−${nf(-c.difference)}`;
}

export { nf as formatCount };
