import type { Sample, SampleFacets, SampleQueryFilter, SampleSort } from '../contract/contract.js';
import { LOCAL_RESULT, type BindValue, type Db } from './db.js';
import { rowToSample, type SampleRow } from './sample-row.js';

/**
 * Finding samples among tens of thousands (issue 22): every filter, sort and page is one SQL
 * statement over the index's own indexes (the finding-samples and "model says" migrations in
 * db.ts), never a list in memory. The search text goes through `samples_text`, an FTS5 trigram
 * index of name, label, metadata values and note kept by triggers, so any part of a word of three
 * or more characters is found through the index; shorter words are looked for in that table's
 * text (a scan of one narrow column).
 */

export const DEFAULT_SORT: SampleSort = { by: 'created', dir: 'desc' };

/** Above this many search hits, walking the sort order's index and checking each row beats sorting the hits. */
const MANY_HITS = 2000;

/**
 * What the newest kept classification of the sample in the row says (classifications.says, see
 * db.ts: a JSON array of labels, one per learn block that said one), or NULL when it has none.
 * "Newest kept" is what samples.modelSays shows (ClassificationStore.latest): the platform's
 * results made for the platform sample it is now and local ones (platform_sample_id 0, whatever
 * the upload state), latest classified_at; a result that is not JSON is passed over, as that view
 * passes over one it cannot read. One seek in classifications_newest per sample, walking its
 * results newest first (the index holds the platform id and `says` too). Two results kept in the
 * same millisecond come in no set order (nor do they in latest()): a tie-break on rowid would sort
 * each sample's results, a temp B-tree per sample (measured: about twice the time over 50,000 samples).
 */
const NEWEST_SAYS = `(SELECT c.says FROM classifications AS c
  WHERE c.sample_id = samples.id AND (c.platform_sample_id = ${LOCAL_RESULT} OR c.platform_sample_id = samples.platform_sample_id) AND c.says IS NOT NULL
  ORDER BY c.classified_at DESC LIMIT 1)`;

export interface Where {
  sql: string;
  args: BindValue[];
}

/**
 * The WHERE clause of a filter (empty string when it constrains nothing). `db` is asked how many
 * rows the search text matches, to pick the cheaper plan for a common word.
 */
export function whereOf(db: Db, f: SampleQueryFilter = {}): Where {
  const parts: string[] = [];
  const args: BindValue[] = [];
  const list = (values: readonly BindValue[]) => {
    args.push(...values);
    return values.map(() => '?').join(', ');
  };
  if (f.ids) {
    parts.push('id IN (SELECT value FROM json_each(?))');
    args.push(JSON.stringify(f.ids));
  }
  const text = textSearch(f.text);
  if (text) {
    // A word found in much of the folder: let the sort's index lead and check each row against the
    // hits (the unary + keeps SQLite from building the page from the hits and sorting them all).
    // Counting the hits first costs little through the trigram index; a short word has no index to
    // count with, and matches many samples anyway.
    const many = text.short || (db.prepare(`SELECT count(*) AS n FROM samples_text WHERE ${text.sql}`).get(...text.args) as { n: number }).n > MANY_HITS;
    parts.push(`${many ? '+' : ''}rowid IN (SELECT rowid FROM samples_text WHERE ${text.sql})`);
    args.push(...text.args);
  }
  if (f.labels?.length) {
    const named = f.labels.filter((l): l is string => l !== null);
    const alts: string[] = [];
    if (named.length) {
      alts.push('label IN (SELECT value FROM json_each(?))');
      args.push(JSON.stringify(named));
    }
    if (named.length < f.labels.length) alts.push('label IS NULL');
    parts.push(alts.length === 1 ? alts[0]! : `(${alts.join(' OR ')})`);
  }
  if (f.categories?.length) {
    // "split" samples are counted under training until the platform places them (the class
    // balance does the same), so clicking training there lists them too.
    const cats = f.categories.includes('training') && !f.categories.includes('split') ? [...f.categories, 'split' as const] : f.categories;
    parts.push(`category IN (${list(cats)})`);
  }
  if (f.states?.length) parts.push(`state IN (${list(f.states)})`);
  if (f.kinds?.length) parts.push(`kind IN (${list(f.kinds)})`);
  if (f.flagged !== undefined) parts.push(f.flagged ? 'flagged > 0' : 'flagged = 0');
  if (f.severities?.length) parts.push(`flagged IN (${list(f.severities.map((s) => (s === 'error' ? 2 : 1)))})`);
  if (f.findings?.length) {
    parts.push(`flagged > 0 AND EXISTS (SELECT 1 FROM json_each(samples.quality, '$.findings') AS q WHERE q.value ->> 'code' IN (${list(f.findings)}))`);
  }
  // Written as the expressions of the partial indexes (samples_by_capture_source, samples_by_session), so those answer them.
  if (f.sources?.length) parts.push(`extra ->> 'source' IN (${list(f.sources)})`);
  if (f.sessions?.length) parts.push(`metadata ->> 'session' IN (${list(f.sessions)})`);
  if (f.createdFrom) {
    parts.push('created >= ?');
    args.push(new Date(f.createdFrom).toISOString());
  }
  if (f.createdBefore) {
    parts.push('created < ?');
    args.push(new Date(f.createdBefore).toISOString());
  }
  if (f.modelSays?.length) {
    parts.push(`EXISTS (SELECT 1 FROM json_each(${NEWEST_SAYS}) AS m WHERE m.value IN (SELECT value FROM json_each(?)))`);
    args.push(JSON.stringify(f.modelSays));
  }
  if (f.modelDisagrees !== undefined) {
    // Only a labeled sample can disagree: an unlabeled one has nothing to be told apart from.
    const disagrees = `(label IS NOT NULL AND EXISTS (SELECT 1 FROM json_each(${NEWEST_SAYS}) AS m WHERE m.value <> samples.label))`;
    parts.push(f.modelDisagrees ? disagrees : `NOT ${disagrees}`);
  }
  return { sql: parts.length ? `WHERE ${parts.join(' AND ')}` : '', args };
}

/**
 * The search text as FTS5 terms: each word must be found. Words of three characters or more go
 * through the trigram index (a quoted phrase: any substring, case-insensitive); shorter ones are
 * matched with LIKE against the indexed text.
 */
function textSearch(text: string | undefined): (Where & { short: boolean }) | null {
  const words = (text ?? '').trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return null;
  const long = words.filter((w) => [...w].length >= 3);
  const short = words.filter((w) => [...w].length < 3);
  const parts: string[] = [];
  const args: BindValue[] = [];
  if (long.length) {
    parts.push('samples_text MATCH ?');
    args.push(long.map((w) => `"${w.replaceAll('"', '""')}"`).join(' '));
  }
  for (const w of short) {
    parts.push("body LIKE ? ESCAPE '\\'");
    args.push(`%${w.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  }
  return { sql: parts.join(' AND '), args, short: short.length > 0 };
}

/** ORDER BY for a sort; every order ends on rowid so pages never overlap or skip a sample. */
export function orderOf(sort: SampleSort = DEFAULT_SORT): string {
  const d = sort.dir === 'asc' ? 'ASC' : 'DESC';
  switch (sort.by) {
    case 'created': return `ORDER BY created ${d}, rowid ${d}`;
    case 'name': return `ORDER BY name COLLATE NOCASE ${d}, rowid ${d}`;
    case 'label': return `ORDER BY label ${d}, created ${d}, rowid ${d}`;
    case 'length': return `ORDER BY length_ms ${d}, created ${d}, rowid ${d}`;
  }
}

export interface QueryPage {
  samples: Sample[];
  total: number;
  offset: number;
  limit: number;
}

/** One page of the samples a filter matches, in the sort's order, and how many match in all (one snapshot). */
export function querySamples(db: Db, q: { filter?: SampleQueryFilter | undefined; sort?: SampleSort | undefined; limit?: number | undefined; offset?: number | undefined }): QueryPage {
  const limit = q.limit ?? 500;
  const offset = q.offset ?? 0;
  return db.transaction(() => {
    const w = whereOf(db, q.filter);
    const total = (db.prepare(`SELECT count(*) AS n FROM samples ${w.sql}`).get(...w.args) as { n: number }).n;
    const rows = offset >= total ? [] : (db.prepare(`SELECT * FROM samples ${w.sql} ${orderOf(q.sort)} LIMIT ? OFFSET ?`).all(...w.args, limit, offset) as SampleRow[]);
    return { samples: rows.map(rowToSample), total, offset, limit };
  })();
}

export function countSamples(db: Db, filter: SampleQueryFilter | undefined, extra = ''): number {
  const w = whereOf(db, filter);
  const sql = extra ? (w.sql ? `${w.sql} AND ${extra}` : `WHERE ${extra}`) : w.sql;
  return (db.prepare(`SELECT count(*) AS n FROM samples ${sql}`).get(...w.args) as { n: number }).n;
}

/** The ids a filter matches (and `extra`, an SQL condition of the caller's), in the sort's order, at most `limit`. */
export function idsMatching(db: Db, filter: SampleQueryFilter | undefined, opts: { sort?: SampleSort | undefined; limit?: number | undefined; extra?: string } = {}): string[] {
  const w = whereOf(db, filter);
  const sql = opts.extra ? (w.sql ? `${w.sql} AND ${opts.extra}` : `WHERE ${opts.extra}`) : w.sql;
  return db.prepare(`SELECT id FROM samples ${sql} ${orderOf(opts.sort)} LIMIT ?`).pluck().all(...w.args, opts.limit ?? -1) as string[];
}

/** How many of the matching samples are in each group of `expr` (e.g. state), for bulk previews. */
export function countBy(db: Db, filter: SampleQueryFilter | undefined, expr: string): Map<string | number | null, number> {
  const w = whereOf(db, filter);
  const rows = db.prepare(`SELECT ${expr} AS k, count(*) AS n FROM samples ${w.sql} GROUP BY k`).all(...w.args) as Array<{ k: string | number | null; n: number }>;
  return new Map(rows.map((r) => [r.k, r.n]));
}

/** What the whole folder holds, for filter chips; each part is a GROUP BY over an index. */
export function facets(db: Db): SampleFacets {
  const all = <T>(sql: string) => db.prepare(sql).all() as T[];
  return db.transaction((): SampleFacets => {
    const span = db.prepare('SELECT min(created) AS first, max(created) AS last, count(*) AS n FROM samples').get() as { first: string | null; last: string | null; n: number };
    return {
      labels: all<{ label: string | null; count: number }>('SELECT label, count(*) AS count FROM samples GROUP BY label ORDER BY label IS NULL, label'),
      categories: all<SampleFacets['categories'][number]>('SELECT category, count(*) AS count FROM samples GROUP BY category ORDER BY category'),
      states: all<SampleFacets['states'][number]>('SELECT state, count(*) AS count FROM samples GROUP BY state ORDER BY state'),
      kinds: all<SampleFacets['kinds'][number]>('SELECT kind, count(*) AS count FROM samples GROUP BY kind ORDER BY kind'),
      findings: all<SampleFacets['findings'][number]>(
        `SELECT q.value ->> 'code' AS code, count(DISTINCT samples.rowid) AS count FROM samples, json_each(samples.quality, '$.findings') AS q
         WHERE flagged > 0 GROUP BY code ORDER BY code`,
      ),
      sources: all<SampleFacets['sources'][number]>(
        `SELECT extra ->> 'source' AS source, count(*) AS count FROM samples WHERE extra ->> 'source' IS NOT NULL GROUP BY source ORDER BY source`,
      ),
      sessions: all<SampleFacets['sessions'][number]>(
        `SELECT metadata ->> 'session' AS session, count(*) AS count, min(created) AS first, max(created) AS last FROM samples
         WHERE metadata ->> 'session' IS NOT NULL GROUP BY session ORDER BY last DESC LIMIT 200`,
      ),
      // A sample is counted once per label however many of its learn blocks say it.
      modelSays: all<SampleFacets['modelSays'][number]>(
        `SELECT m.value AS label, count(DISTINCT samples.rowid) AS count FROM samples, json_each(${NEWEST_SAYS}) AS m GROUP BY m.value ORDER BY m.value`,
      ),
      classified: (db.prepare(`SELECT count(*) AS n FROM samples WHERE ${NEWEST_SAYS} IS NOT NULL`).get() as { n: number }).n,
      flagged: (db.prepare('SELECT count(*) AS n FROM samples WHERE flagged > 0').get() as { n: number }).n,
      firstCreated: span.first,
      lastCreated: span.last,
      total: span.n,
    };
  })();
}
