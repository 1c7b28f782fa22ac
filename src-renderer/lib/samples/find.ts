// What the samples table is showing: search text, filters, sort and page, as one plain value.
// It turns into the core's SampleQueryFilter (every query runs in the index) and into the address
// (`#samples?q=wave&label=idle&sort=name.asc&page=3`), so a reload or a bookmark shows the same rows.
// Types only: the renderer does not bundle the contract's schemas (the core checks every call);
// its limits are a module of their own for that reason.
import type { Category, QualityCode, SampleQueryFilter, SampleSort, SampleSortKey, SampleState } from '../../../src-main/core/contract/contract.js';
import { MAX_IDS } from '../../../src-main/core/contract/limits.js';
import { forgottenCell, type ShownCell } from './cell-memory.js';

/** The state buttons above the table (each a preset of states, or the quality flag). */
export const STATE_FILTERS = [
  { id: 'all', label: 'All', states: null },
  { id: 'local', label: 'Local', states: ['local'] },
  { id: 'queue', label: 'In queue', states: ['queued', 'uploading'] },
  { id: 'uploaded', label: 'Uploaded', states: ['uploaded'] },
  { id: 'problems', label: 'Failed / rejected', states: ['failed', 'rejected'] },
  // Any state: what the data-quality checks found something in (held back or not).
  { id: 'flagged', label: 'Flagged', states: null, flagged: true },
] as const satisfies ReadonlyArray<{ id: string; label: string; states: readonly SampleState[] | null; flagged?: boolean }>;
export type StateFilterId = (typeof STATE_FILTERS)[number]['id'];

export interface SampleFind {
  /** The search box (name, label, metadata values, note); '' = no search. */
  text: string;
  state: StateFilterId;
  /** null = unlabeled. Several: any of them. */
  labels: (string | null)[];
  categories: Category[];
  findings: QualityCode[];
  sources: string[];
  sessions: string[];
  /** Days (YYYY-MM-DD, local time), both inclusive; null = open. */
  from: string | null;
  to: string | null;
  /** The newest classification leads with one of these labels. */
  modelSays: string[];
  /** Only samples the model labels otherwise than their own label. */
  modelDisagrees: boolean;
  /**
   * A cell of a model test's matrix: exactly its samples, named as the cell is ("actual idle ·
   * predicted wave"). The address holds its key only; its ids are kept by the window (cell-memory.ts).
   */
  cell: ShownCell | null;
  sort: SampleSort;
  /** 0-based page. */
  page: number;
}

export const DEFAULT_SORT: SampleSort = { by: 'created', dir: 'desc' };
/** The direction a column sorts in first: names and labels A→Z, lengths and dates biggest/newest first. */
export const FIRST_DIR: Record<SampleSortKey, 'asc' | 'desc'> = { created: 'desc', name: 'asc', label: 'asc', length: 'desc' };

export function emptyFind(): SampleFind {
  return { text: '', state: 'all', labels: [], categories: [], findings: [], sources: [], sessions: [], from: null, to: null, modelSays: [], modelDisagrees: false, cell: null, sort: DEFAULT_SORT, page: 0 };
}

/** Whether anything narrows the rows (the state buttons included): an empty answer then means "nothing matches", not "no samples". */
export function isFiltered(f: SampleFind): boolean {
  return f.text.trim() !== '' || f.state !== 'all' || chipCount(f) > 0;
}

/** Filters beyond the search and the state buttons ("Clear filters" shows with any). */
export function chipCount(f: SampleFind): number {
  return f.labels.length + f.categories.length + f.findings.length + f.sources.length + f.sessions.length + (f.from ? 1 : 0) + (f.to ? 1 : 0) + f.modelSays.length + (f.modelDisagrees ? 1 : 0) + (f.cell ? 1 : 0);
}

/** Local midnight of a YYYY-MM-DD day, as the ISO time the core compares `created` with. */
function dayStart(day: string, plusDays = 0): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(y, m - 1, d + plusDays).toISOString();
}

export function toFilter(f: SampleFind): SampleQueryFilter {
  const preset = STATE_FILTERS.find((s) => s.id === f.state);
  const out: SampleQueryFilter = {};
  const text = f.text.trim();
  if (text) out.text = text.slice(0, 200);
  if (f.labels.length) out.labels = [...f.labels];
  if (f.categories.length) out.categories = [...f.categories];
  if (preset?.states) out.states = [...preset.states];
  if (preset && 'flagged' in preset) out.flagged = true;
  if (f.findings.length) out.findings = [...f.findings];
  if (f.sources.length) out.sources = [...f.sources];
  if (f.sessions.length) out.sessions = [...f.sessions];
  if (f.from) out.createdFrom = dayStart(f.from);
  if (f.to) out.createdBefore = dayStart(f.to, 1);
  if (f.modelSays.length) out.modelSays = [...f.modelSays];
  if (f.modelDisagrees) out.modelDisagrees = true;
  if (f.cell) out.ids = f.cell.ids.slice(0, MAX_IDS); // the most a filter takes
  return out;
}

// ---------- the address ----------

/** `label=` with no value is the unlabeled chip (a label is never empty). */
const UNLABELED = '';
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const CATEGORIES = ['training', 'testing', 'validation', 'post-processing', 'split'] as const satisfies readonly Category[];
/** Every QualityCode (a test compares this list with the contract's). */
export const FINDINGS = [
  'unreadable', 'too-short', 'lost-readings', 'rejected-lines', 'irregular-timing', 'timestamp-gaps', 'rate-mismatch',
  'flat-axis', 'flat-stretch', 'clipping', 'silence', 'dropouts',
] as const satisfies readonly QualityCode[];
const SORT_KEYS: readonly SampleSortKey[] = ['created', 'name', 'label', 'length'];

/** The query part of the address for this find; '' when everything is as it starts. */
export function toQuery(f: SampleFind): string {
  const p = new URLSearchParams();
  if (f.text.trim()) p.set('q', f.text);
  if (f.state !== 'all') p.set('state', f.state);
  for (const l of f.labels) p.append('label', l ?? UNLABELED);
  for (const c of f.categories) p.append('category', c);
  for (const c of f.findings) p.append('finding', c);
  for (const s of f.sources) p.append('source', s);
  for (const s of f.sessions) p.append('session', s);
  if (f.from) p.set('from', f.from);
  if (f.to) p.set('to', f.to);
  for (const l of f.modelSays) p.append('model', l);
  if (f.modelDisagrees) p.set('disagrees', '1');
  if (f.cell) p.set('cell', f.cell.key);
  if (f.sort.by !== DEFAULT_SORT.by || f.sort.dir !== DEFAULT_SORT.dir) p.set('sort', `${f.sort.by}.${f.sort.dir}`);
  if (f.page > 0) p.set('page', String(f.page + 1));
  return p.toString();
}

/**
 * Reads a find back from the address. Anything it does not understand is dropped (an old bookmark
 * or a hand-edited address shows the samples rather than an error); known values are kept as given.
 * A matrix cell's key is looked up with `recall` (a cell not kept shows as such, never as every sample).
 */
export function fromQuery(query: string, recall: (key: string) => ShownCell = forgottenCell): SampleFind {
  const p = new URLSearchParams(query);
  const f = emptyFind();
  f.text = p.get('q') ?? '';
  const state = p.get('state');
  if (state && STATE_FILTERS.some((s) => s.id === state)) f.state = state as StateFilterId;
  f.labels = p.getAll('label').map((l) => (l === UNLABELED ? null : l));
  f.categories = p.getAll('category').filter((c): c is Category => (CATEGORIES as readonly string[]).includes(c));
  f.findings = p.getAll('finding').filter((c): c is QualityCode => (FINDINGS as readonly string[]).includes(c));
  f.sources = p.getAll('source').filter(Boolean);
  f.sessions = p.getAll('session').filter(Boolean);
  const from = p.get('from');
  const to = p.get('to');
  if (from && DAY.test(from)) f.from = from;
  if (to && DAY.test(to)) f.to = to;
  f.modelSays = p.getAll('model').filter(Boolean);
  f.modelDisagrees = p.get('disagrees') === '1';
  const cell = p.get('cell');
  if (cell && /^[0-9a-z]{1,40}$/.test(cell)) f.cell = recall(cell);
  const [by, dir] = (p.get('sort') ?? '').split('.');
  if (SORT_KEYS.includes(by as SampleSortKey) && (dir === 'asc' || dir === 'desc')) f.sort = { by: by as SampleSortKey, dir };
  const page = Number(p.get('page'));
  if (Number.isInteger(page) && page > 1) f.page = page - 1;
  return f;
}

/** The view id and the query of an address hash (`#samples?q=wave` → ['samples', 'q=wave']). */
export function splitHash(hash: string): [string, string] {
  const h = hash.replace(/^#/, '');
  const i = h.indexOf('?');
  return i < 0 ? [h, ''] : [h.slice(0, i), h.slice(i + 1)];
}
