// The filter menus and the chips above the samples table: what each facet value reads as, which
// values a menu offers, and the active filters as removable chips. Pure, so it is tested in Node.
import type { QualityCode, SampleFacets } from '../../../src-main/core/contract/contract.js';
import type { SampleFind } from './find.js';
import { FINDING_NAMES } from './quality.js';

export { FINDING_NAMES };


/** A filter kept as a list in the find (each value a chip, each menu entry a checkbox). */
export type ListKey = 'labels' | 'categories' | 'findings' | 'sources' | 'sessions' | 'modelSays';

export interface MenuOption<T> {
  value: T;
  text: string;
  /** Samples with this value in the whole folder (the facets); null when the facets do not list it. */
  count: number | null;
  checked: boolean;
}

/**
 * What a menu offers: the facets' values with their counts, and any chosen value the facets do not
 * list (from an address, or a label the last sample of just lost), so it can still be unticked.
 */
export function menuOptions<T>(facet: ReadonlyArray<{ value: T; count: number }>, chosen: readonly T[], text: (v: T) => string): MenuOption<T>[] {
  const known = new Set(facet.map((f) => f.value));
  return [
    ...facet.map((f) => ({ value: f.value, text: text(f.value), count: f.count, checked: chosen.includes(f.value) })),
    ...chosen.filter((v) => !known.has(v)).map((v) => ({ value: v, text: text(v), count: null, checked: true })),
  ];
}

export const labelText = (l: string | null): string => l ?? 'unlabeled';

/** A session as a person can tell it from the others: when it was recorded, and a short id. */
export function sessionText(s: { session: string; last?: string }, formatTime: (iso: string) => string): string {
  const id = s.session.length > 10 ? `${s.session.slice(0, 8)}…` : s.session;
  return s.last ? `${formatTime(s.last)} · ${id}` : id;
}

/** The menus' values out of the facets, keyed by the find's list they fill. */
export function facetValues(f: SampleFacets): { [K in ListKey]: Array<{ value: SampleFind[K][number]; count: number }> } {
  return {
    labels: f.labels.map((x) => ({ value: x.label, count: x.count })),
    categories: f.categories.map((x) => ({ value: x.category, count: x.count })),
    findings: f.findings.map((x) => ({ value: x.code, count: x.count })),
    sources: f.sources.map((x) => ({ value: x.source, count: x.count })),
    sessions: f.sessions.map((x) => ({ value: x.session, count: x.count })),
    modelSays: f.modelSays.map((x) => ({ value: x.label, count: x.count })),
  };
}

export interface Chip {
  /** Stable within one find (the keyed each). */
  id: string;
  /** "Label: idle", "From 2026-11-01", "Model disagrees with the label". */
  text: string;
  /** What removing it changes in the find. */
  without: Partial<SampleFind>;
}

const KIND: Record<ListKey, string> = { labels: 'Label', categories: 'Category', findings: 'Quality', sources: 'Source', sessions: 'Session', modelSays: 'Model says' };

/**
 * The active filters beyond the search box and the state buttons, one chip each, in the order of
 * the menus. `sessionName` names a session as its menu does (the ids alone are opaque).
 */
export function activeChips(f: SampleFind, sessionName: (session: string) => string = (s) => s): Chip[] {
  const out: Chip[] = [];
  const list = <K extends ListKey>(key: K, text: (v: SampleFind[K][number]) => string) => {
    const values = f[key] as ReadonlyArray<SampleFind[K][number]>;
    for (const v of values) out.push({ id: `${key}:${v ?? ''}`, text: `${KIND[key]}: ${text(v)}`, without: { [key]: values.filter((x) => x !== v) } as Partial<SampleFind> });
  };
  list('labels', labelText);
  list('categories', (c) => c);
  list('findings', (c) => FINDING_NAMES[c] ?? c);
  list('sources', (s) => s);
  list('sessions', sessionName);
  if (f.from) out.push({ id: 'from', text: `From ${f.from}`, without: { from: null } });
  if (f.to) out.push({ id: 'to', text: `To ${f.to}`, without: { to: null } });
  list('modelSays', (l) => l);
  if (f.modelDisagrees) out.push({ id: 'disagrees', text: 'Model disagrees with the label', without: { modelDisagrees: false } });
  if (f.cell) out.push({ id: 'cell', text: f.cell.text, without: { cell: null } });
  return out;
}

/** A local day (YYYY-MM-DD) of an ISO time, as a date input takes it; '' for null. */
export function dayOf(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}
