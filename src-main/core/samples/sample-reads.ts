import type { Sample, SampleState } from '../contract/contract.js';
import { CoreError } from '../errors.js';
import type { BindValue, Db, Statement } from './db.js';
import { rowToSample, type SampleRow } from './sample-row.js';

export interface SampleFilter {
  states?: SampleState[];
  /** true: only samples with a quality finding; false: only those without. */
  flagged?: boolean;
  /** Only these samples. */
  ids?: string[];
  limit?: number;
  offset?: number;
}

/**
 * The sample index read: one sample, a few thousand by id, filtered lists and counts. SampleStore
 * adds the writes; finding samples by search, sort and facets is sample-query.ts.
 */
export class SampleReads {
  readonly db: Db;
  readonly #statements = new Map<string, Statement>();

  constructor(db: Db) {
    this.db = db;
  }

  /** The sample made from this file with this content, if any. */
  findBySource(path: string, hash: string): Sample | null {
    const row = this.stmt('SELECT * FROM samples WHERE source_path = ? AND source_sha256 = ? ORDER BY created DESC LIMIT 1').get(path, hash) as SampleRow | undefined;
    return row ? rowToSample(row) : null;
  }

  get(id: string): Sample {
    const row = this.stmt('SELECT * FROM samples WHERE id = ?').get(id) as SampleRow | undefined;
    if (!row) throw new CoreError('NotFound', `No sample with id ${id}; it may have been deleted.`);
    return rowToSample(row);
  }

  /** These samples, in one statement (a bulk import's thousands); ids that no longer exist are left out. */
  getMany(ids: readonly string[]): Map<string, Sample> {
    const found = new Map<string, Sample>();
    if (ids.length === 0) return found;
    const rows = this.stmt('SELECT * FROM samples WHERE id IN (SELECT value FROM json_each(?))').all(JSON.stringify(ids)) as SampleRow[];
    for (const r of rows) found.set(r.id, rowToSample(r));
    return found;
  }

  list(filter: SampleFilter = {}): Sample[] {
    const { where, args } = whereOf(filter);
    const rows = this.db
      .prepare(`SELECT * FROM samples ${where} ORDER BY created, rowid LIMIT ? OFFSET ?`)
      .all(...args, filter.limit ?? -1, filter.offset ?? 0) as SampleRow[];
    return rows.map(rowToSample);
  }

  /** Which of `names` samples already carry (derived samples pick names nobody has yet). */
  namesTaken(names: string[]): Set<string> {
    const taken = new Set<string>();
    for (let i = 0; i < names.length; i += 500) {
      const chunk = names.slice(i, i + 500);
      const rows = this.db.prepare(`SELECT name FROM samples WHERE name IN (${chunk.map(() => '?').join(',')})`).all(...chunk) as Array<{ name: string }>;
      for (const r of rows) taken.add(r.name);
    }
    return taken;
  }

  /** How many samples match (for paging a filtered list). */
  count(filter: Pick<SampleFilter, 'states' | 'flagged' | 'ids'> = {}): number {
    const { where, args } = whereOf(filter);
    return (this.db.prepare(`SELECT COUNT(*) AS n FROM samples ${where}`).get(...args) as { n: number }).n;
  }

  /**
   * Where these samples stand (state, and the platform's note or error), in one statement: a run
   * asks about its own files, never the whole index (a data folder may hold years of captures).
   * A sample that no longer exists is absent from the map.
   */
  verdicts(ids: readonly string[]): Map<string, Pick<Sample, 'state' | 'note' | 'error'>> {
    const found = new Map<string, Pick<Sample, 'state' | 'note' | 'error'>>();
    if (ids.length === 0) return found;
    const rows = this.stmt('SELECT id, state, note, error FROM samples WHERE id IN (SELECT value FROM json_each(?))').all(JSON.stringify(ids)) as Array<{ id: string; state: SampleState; note: string | null; error: string | null }>;
    for (const r of rows) found.set(r.id, { state: r.state, note: r.note, error: r.error });
    return found;
  }

  counts(): Record<SampleState, number> {
    const counts: Record<SampleState, number> = { local: 0, queued: 0, uploading: 0, uploaded: 0, failed: 0, rejected: 0 };
    for (const r of this.stmt('SELECT state, COUNT(*) AS n FROM samples GROUP BY state').all() as Array<{ state: SampleState; n: number }>) counts[r.state] = r.n;
    return counts;
  }

  /** Compiled once per SQL text: bulk imports run the same few statements thousands of times. */
  protected stmt(sql: string): Statement {
    let st = this.#statements.get(sql);
    if (!st) this.#statements.set(sql, (st = this.db.prepare(sql)));
    return st;
  }
}

function whereOf(filter: Pick<SampleFilter, 'states' | 'flagged' | 'ids'>): { where: string; args: BindValue[] } {
  const parts: string[] = [];
  const args: BindValue[] = [];
  if (filter.ids) {
    parts.push('id IN (SELECT value FROM json_each(?))');
    args.push(JSON.stringify(filter.ids));
  }
  if (filter.states?.length) {
    parts.push(`state IN (${filter.states.map(() => '?').join(',')})`);
    args.push(...filter.states);
  }
  if (filter.flagged !== undefined) parts.push(filter.flagged ? 'flagged > 0' : 'flagged = 0');
  return { where: parts.length ? `WHERE ${parts.join(' AND ')}` : '', args };
}
