// The class-balance table: labels down, categories across, platform counts next to local ones.
import type { DatasetSummary } from '../../../src-main/core/contract.js';

export type BalanceColumn = keyof DatasetSummary['categories'];
export interface BalanceCell {
  /** null when the platform could not be asked. */
  platform: number | null;
  local: number;
}
export interface BalanceRow {
  /** '' = unlabeled samples. */
  label: string;
  cells: Record<BalanceColumn, BalanceCell>;
  /** Samples of this label on the platform and here, every category together. */
  count: number;
  /** Their total length (platform + local), ms. */
  lengthMs: number;
  /** The user's target count, if set. */
  target: number | null;
}
export interface BalanceTable {
  columns: BalanceColumn[];
  rows: BalanceRow[];
  totals: Record<BalanceColumn, BalanceCell>;
}

function addPlatform(cell: BalanceCell, n: number): void {
  cell.platform = (cell.platform ?? 0) + n;
}

const ALL: BalanceColumn[] = ['training', 'testing', 'validation', 'post-processing'];

/** `targets` adds rows for labels not recorded yet: they are exactly what to record next. */
export function balanceTable(platform: DatasetSummary | null, local: DatasetSummary, targets: Record<string, number> = {}): BalanceTable {
  const used = (c: BalanceColumn) => (platform?.categories[c].itemCount ?? 0) + local.categories[c].itemCount > 0;
  // Training and testing always: an empty testing column is itself worth seeing.
  const columns = ALL.filter((c) => c === 'training' || c === 'testing' || used(c) || (c === 'validation' && platform?.hasValidation));
  const byLabel = new Map<string, Record<BalanceColumn, BalanceCell>>();
  const lengths = new Map<string, number>();
  const addLength = (label: string, ms: number) => lengths.set(label, (lengths.get(label) ?? 0) + ms);
  const row = (label: string) => {
    let r = byLabel.get(label);
    if (!r) {
      r = Object.fromEntries(ALL.map((c) => [c, { platform: platform ? 0 : null, local: 0 }])) as Record<BalanceColumn, BalanceCell>;
      byLabel.set(label, r);
    }
    return r;
  };
  for (const c of ALL) {
    const p = platform?.categories[c];
    if (p) {
      for (const l of p.labels) {
        addPlatform(row(l.label)[c], l.count);
        addLength(l.label, l.totalLengthMs);
      }
      // The platform lists labelled samples only; the rest of its item count is unlabeled.
      const unlabeled = p.itemCount - p.labels.reduce((n, l) => n + l.count, 0);
      if (unlabeled > 0) addPlatform(row('')[c], unlabeled);
    }
    for (const l of local.categories[c].labels) {
      row(l.label)[c].local += l.count;
      addLength(l.label, l.totalLengthMs);
    }
  }
  for (const label of Object.keys(targets)) row(label);
  const totals = Object.fromEntries(
    ALL.map((c) => [c, { platform: platform ? platform.categories[c].itemCount : null, local: local.categories[c].itemCount }]),
  ) as Record<BalanceColumn, BalanceCell>;
  const rows = [...byLabel.entries()]
    .sort(([a], [b]) => (a === '' ? 1 : b === '' ? -1 : a.localeCompare(b)))
    .map(([label, cells]) => ({
      label,
      cells,
      count: ALL.reduce((n, c) => n + (cells[c].platform ?? 0) + cells[c].local, 0),
      lengthMs: lengths.get(label) ?? 0,
      target: label === '' ? null : (targets[label] ?? null),
    }));
  return { columns, rows, totals };
}
