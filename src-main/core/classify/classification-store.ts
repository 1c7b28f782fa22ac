import { LOCAL_RESULT, type Db, type Statement } from '../samples/db.js';
import { z } from 'zod';
import { Classification, ClassifiedWindow, type ResultVariant } from '../contract/classify-schema.js';

/** impulse_id 0 stands for "the project's default impulse" (platform impulse ids are positive). */
const DEFAULT_IMPULSE = 0;
const impulseKey = (id: number | null): number => id ?? DEFAULT_IMPULSE;
const platformKey = (c: Classification): number => c.platformSampleId ?? LOCAL_RESULT;

/** What a kept local result was made from. */
export interface LocalKey {
  sampleSha256: string | null;
  threshold: number | null;
  strideMs: number | null;
  windowMs: number | null;
}

/**
 * Kept classifications and noted takes, in the sample index (tables `classifications` and
 * `takes`, see samples/db.ts). Never touches the samples table: a classification says what the
 * model made of a sample, it does not change the sample. The platform's results and local ones
 * (variant `local:<hash16>`, one per model build) share the table, so the newest of either wins.
 */
export class ClassificationStore {
  #keepStatement: Statement | null = null;
  #localKeysStatement: Statement | null = null;
  #localWindowsStatement: Statement | null = null;

  constructor(private readonly db: Db) {}

  keep(c: Classification): void {
    // Prepared once: preparing cost as much as the insert when a model test keeps hundreds.
    this.#keepStatement ??= this.db.prepare(
      `INSERT INTO classifications (sample_id, impulse_id, variant, platform_sample_id, classified_at, result) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (sample_id, impulse_id, variant) DO UPDATE SET platform_sample_id = excluded.platform_sample_id,
         classified_at = excluded.classified_at, result = excluded.result`,
    );
    this.#keepStatement
      .run(c.sampleId, impulseKey(c.impulseId), c.variant, platformKey(c), c.classifiedAt, JSON.stringify(c));
  }

  /** Several results in one transaction: a commit each cost more than classifying a short sample (model test keeps hundreds). */
  keepAll(cs: readonly Classification[]): void {
    if (!cs.length) return;
    this.db.transaction(() => {
      for (const c of cs) this.keep(c);
    })();
  }

  /**
   * The kept result for this sample, impulse and variant: a platform result if it was made for the
   * platform sample it is now; a local one (variant local:…) whatever its upload state.
   */
  get(sampleId: string, impulseId: number | null, variant: ResultVariant, platformSampleId: number | null): Classification | null {
    const row = this.db
      .prepare('SELECT platform_sample_id AS p, result FROM classifications WHERE sample_id = ? AND impulse_id = ? AND variant = ?')
      .get(sampleId, impulseKey(impulseId), variant) as { p: number; result: string } | undefined;
    if (!row) return null;
    if (row.p !== LOCAL_RESULT && (platformSampleId === null || row.p !== platformSampleId)) return null;
    return parse(row.result);
  }

  /**
   * What a kept local result was made from (the sample's bytes, threshold, stride, window), read
   * without parsing the result (a model test parses only the results it can use), for many samples
   * in one statement: a model test asks for a thousand before it starts its workers.
   */
  localKeys(sampleIds: readonly string[], variant: ResultVariant): Map<string, LocalKey> {
    this.#localKeysStatement ??= this.db.prepare(
      `SELECT sample_id AS id, result ->> '$.local.sampleSha256' AS sampleSha256, result ->> '$.local.threshold' AS threshold,
         result ->> '$.windowIncreaseMs' AS strideMs, result ->> '$.windowSizeMs' AS windowMs
       FROM classifications WHERE sample_id IN (SELECT value FROM json_each(?)) AND impulse_id = ${DEFAULT_IMPULSE} AND variant = ?
         AND platform_sample_id = ${LOCAL_RESULT} AND json_valid(result)`,
    );
    const keys = new Map<string, LocalKey>();
    if (!sampleIds.length) return keys;
    const rows = this.#localKeysStatement.all(JSON.stringify(sampleIds), variant) as Array<LocalKey & { id: string }>;
    for (const r of rows) keys.set(r.id, { sampleSha256: r.sampleSha256, threshold: r.threshold, strideMs: r.strideMs, windowMs: r.windowMs });
    return keys;
  }

  /**
   * The windows of kept local results of one block (a model test reusing them), for many samples in
   * one statement; SQLite hands over only the windows, and only they are checked (a whole result
   * read and checked a sample at a time was a quarter of a re-test's time). A sample whose result is
   * not one block of windows this version reads is left out, and is classified again.
   */
  localWindows(sampleIds: readonly string[], variant: ResultVariant): Map<string, ClassifiedWindow[]> {
    this.#localWindowsStatement ??= this.db.prepare(
      `SELECT sample_id AS id, result -> '$.blocks[0].windows' AS windows
       FROM classifications WHERE sample_id IN (SELECT value FROM json_each(?)) AND impulse_id = ${DEFAULT_IMPULSE} AND variant = ?
         AND platform_sample_id = ${LOCAL_RESULT} AND json_valid(result) AND json_array_length(result, '$.blocks') = 1`,
    );
    const out = new Map<string, ClassifiedWindow[]>();
    if (!sampleIds.length) return out;
    const rows = this.#localWindowsStatement.all(JSON.stringify(sampleIds), variant) as Array<{ id: string; windows: string | null }>;
    for (const r of rows) {
      if (r.windows === null) continue;
      const windows = Windows.safeParse(JSON.parse(r.windows));
      if (windows.success) out.set(r.id, windows.data);
    }
    return out;
  }

  /** The newest kept result of this sample made on this computer by a model of this name (any build of it). */
  getLocal(sampleId: string, model: string): Classification | null {
    const rows = this.db
      .prepare(
        `SELECT result FROM classifications WHERE sample_id = ? AND platform_sample_id = ${LOCAL_RESULT}
         AND json_valid(result) AND result ->> '$.local.model' = ? ORDER BY classified_at DESC`,
      )
      .all(sampleId, model) as Array<{ result: string }>;
    for (const r of rows) {
      const c = parse(r.result);
      if (c) return c;
    }
    return null;
  }

  /**
   * The newest kept result of each sample (any impulse and variant, the platform's or local), for
   * those of `ids` that have one; platform results only while made for the platform sample it is now.
   */
  latest(ids: string[]): Map<string, Classification> {
    const out = new Map<string, Classification>();
    if (!ids.length) return out;
    const rows = this.db
      .prepare(
        `SELECT c.sample_id AS id, c.result FROM classifications c JOIN samples s ON s.id = c.sample_id
         WHERE c.sample_id IN (SELECT value FROM json_each(?)) AND (c.platform_sample_id = ${LOCAL_RESULT} OR c.platform_sample_id = s.platform_sample_id)
         ORDER BY c.classified_at`,
      )
      .all(JSON.stringify(ids)) as Array<{ id: string; result: string }>;
    for (const r of rows) {
      const c = parse(r.result);
      if (c) out.set(r.id, c); // later rows are newer
    }
    return out;
  }

  /** Notes samples saved by a capture; `awaiting` = to be looked at once the platform confirms their upload. */
  noteTakes(ids: string[], savedAt: string, awaiting: boolean): void {
    if (!ids.length) return;
    this.db
      .prepare(
        `INSERT OR IGNORE INTO takes (sample_id, saved_at, session, awaiting_upload)
         SELECT id, ?, json_extract(metadata, '$.session'), ? FROM samples WHERE id IN (SELECT value FROM json_each(?))`,
      )
      .run(savedAt, awaiting ? 1 : 0, JSON.stringify(ids));
  }

  /** Takes waiting for their upload whose upload has ended: uploaded (with or without a platform id) or refused. */
  awaitingSettled(): Array<{ id: string; state: string; platformSampleId: number | null; category: string }> {
    return this.db
      .prepare(
        `SELECT s.id, s.state, s.platform_sample_id AS platformSampleId, s.category FROM takes t JOIN samples s ON s.id = t.sample_id
         WHERE t.awaiting_upload = 1 AND s.state IN ('uploaded', 'rejected') ORDER BY t.saved_at`,
      )
      .all() as Array<{ id: string; state: string; platformSampleId: number | null; category: string }>;
  }

  hasAwaiting(): boolean {
    return this.db.prepare('SELECT 1 FROM takes WHERE awaiting_upload = 1 LIMIT 1').get() !== undefined;
  }

  settle(id: string): void {
    this.db.prepare('UPDATE takes SET awaiting_upload = 0 WHERE sample_id = ?').run(id);
  }

  /** Takes saved since `since` (ISO; null = all), of one recording session when `sessionId` is given. */
  takes(since: string | null, sessionId: string | null): Array<{ id: string; label: string | null }> {
    return this.db
      .prepare(
        `SELECT s.id, s.label FROM takes t JOIN samples s ON s.id = t.sample_id
         WHERE (? IS NULL OR t.saved_at >= ?) AND (? IS NULL OR t.session = ?) ORDER BY t.saved_at`,
      )
      .all(since, since, sessionId, sessionId) as Array<{ id: string; label: string | null }>;
  }
}

const Windows = z.array(ClassifiedWindow);

function parse(json: string): Classification | null {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return null;
  }
  // A result kept by another version of the app that this one cannot read counts as not kept.
  const r = Classification.safeParse(value);
  return r.success ? r.data : null;
}
