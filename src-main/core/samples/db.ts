import { join } from 'node:path';
import { Db } from './sqlite.js';

export type { BindValue, Db, Statement } from './sqlite.js';

/**
 * platform_sample_id of a result made on this computer (a local model). The column is NOT NULL
 * (migration 4) and changing that means rebuilding the table; platform sample ids are positive, so
 * 0 cannot be mistaken for one. A local result classified the sample's own rows: it holds whatever
 * the sample's upload state, where a platform result holds only while the sample is the platform
 * sample it was made for. Every reader (classify/classification-store.ts, sample-query.ts
 * NEWEST_SAYS) reads 0 that way; it is declared here, beside the table, so both read it from below.
 */
export const LOCAL_RESULT = 0;

/** The note in `writers` of no run, left by migration 8: see samples/writer-notes.ts. */
export const BEFORE_WRITER_NOTES = 'before-writers-were-noted';

/** Each entry moves the schema one version up; never edit an entry that has shipped. */
const MIGRATIONS: string[] = [
  `CREATE TABLE samples (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     file TEXT NOT NULL,
     owned INTEGER NOT NULL,
     source_path TEXT,
     source_sha256 TEXT,
     kind TEXT NOT NULL,
     label TEXT,
     category TEXT NOT NULL,
     metadata TEXT NOT NULL DEFAULT '{}',
     bounding_boxes TEXT NOT NULL DEFAULT '[]',
     structured_labels TEXT,
     created TEXT NOT NULL,
     bytes INTEGER NOT NULL,
     sha256 TEXT NOT NULL,
     length_ms REAL,
     incomplete INTEGER NOT NULL DEFAULT 0,
     add_date_id INTEGER NOT NULL DEFAULT 0,
     allow_duplicates INTEGER NOT NULL DEFAULT 0,
     state TEXT NOT NULL,
     attempts INTEGER NOT NULL DEFAULT 0,
     next_attempt_at INTEGER NOT NULL DEFAULT 0,
     error TEXT,
     note TEXT,
     platform_sample_id INTEGER,
     uploaded_at TEXT,
     extra TEXT NOT NULL DEFAULT '{}'
   );
   CREATE INDEX samples_by_state ON samples(state, next_attempt_at);
   CREATE INDEX samples_by_source ON samples(source_path, source_sha256);`,
  // The queue takes the oldest queued samples first; without this every batch sorts the queue.
  `CREATE INDEX samples_queue_order ON samples(state, created);`,
  // Data-quality checks: the report (JSON), its worst severity (0 none, 1 warning, 2 error) for
  // filtering, and whether the hold setting kept the sample out of the queue.
  `ALTER TABLE samples ADD COLUMN quality TEXT;
   ALTER TABLE samples ADD COLUMN flagged INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE samples ADD COLUMN held_back INTEGER NOT NULL DEFAULT 0;
   CREATE INDEX samples_by_flagged ON samples(flagged);`,
  // Classifications on the platform (classify/v2), kept per sample, impulse (0 = the project's
  // default) and variant; the result is JSON (core/contract/classify-schema.ts). Takes (captures)
  // are noted so the one saved with "classify each take after upload" is classified once the
  // platform confirms it, and so the "collect more of" view can count them. Neither table ever
  // changes a sample; both go with it.
  `CREATE TABLE classifications (
     sample_id TEXT NOT NULL REFERENCES samples(id) ON DELETE CASCADE,
     impulse_id INTEGER NOT NULL,
     variant TEXT NOT NULL,
     platform_sample_id INTEGER NOT NULL,
     classified_at TEXT NOT NULL,
     result TEXT NOT NULL,
     PRIMARY KEY (sample_id, impulse_id, variant)
   );
   CREATE TABLE takes (
     sample_id TEXT PRIMARY KEY REFERENCES samples(id) ON DELETE CASCADE,
     saved_at TEXT NOT NULL,
     session TEXT,
     awaiting_upload INTEGER NOT NULL DEFAULT 1
   );
   CREATE INDEX takes_awaiting ON takes(awaiting_upload);
   CREATE INDEX takes_by_time ON takes(saved_at);`,
  // Finding samples among tens of thousands (samples.query, core/samples/sample-query.ts): an index
  // per sort order (newest first, name, label, length) and per filter that is not a sort order
  // already (category, with label, state and length for the class balance's counts from the index
  // alone; capture source; recording session); the search text in an FTS5 trigram
  // index (any substring of 3 characters or more, case-insensitive), kept by triggers so every
  // writer (imports, the queue, relabels, deletes) keeps it right without knowing of it. Its rows
  // share the samples' rowids (stable here: nothing VACUUMs the index). length_checked marks the
  // samples whose length was looked for in their file (see length-backfill.ts).
  `CREATE INDEX samples_by_created ON samples(created);
   CREATE INDEX samples_by_name ON samples(name COLLATE NOCASE);
   CREATE INDEX samples_by_label ON samples(label, created);
   CREATE INDEX samples_by_length ON samples(length_ms, created);
   CREATE INDEX samples_by_category ON samples(category, label, state, length_ms);
   CREATE INDEX samples_by_capture_source ON samples(extra ->> 'source') WHERE extra ->> 'source' IS NOT NULL;
   CREATE INDEX samples_by_session ON samples(metadata ->> 'session') WHERE metadata ->> 'session' IS NOT NULL;
   ALTER TABLE samples ADD COLUMN length_checked INTEGER NOT NULL DEFAULT 0;
   CREATE INDEX samples_length_unknown ON samples(kind) WHERE length_ms IS NULL AND length_checked = 0;
   CREATE VIRTUAL TABLE samples_text USING fts5(body, tokenize = 'trigram');
   INSERT INTO samples_text(rowid, body) SELECT rowid, ${searchBody('samples.')} FROM samples;
   CREATE TRIGGER samples_text_insert AFTER INSERT ON samples BEGIN
     INSERT INTO samples_text(rowid, body) VALUES (new.rowid, ${searchBody('new.')});
   END;
   CREATE TRIGGER samples_text_delete AFTER DELETE ON samples BEGIN
     DELETE FROM samples_text WHERE rowid = old.rowid;
   END;
   CREATE TRIGGER samples_text_update AFTER UPDATE OF name, label, metadata, note ON samples BEGIN
     UPDATE samples_text SET body = ${searchBody('new.')} WHERE rowid = new.rowid;
   END;`,
  // The "model says" filter and facet (samples.query, sample-query.ts): `says` holds what each
  // learn block of a kept result says (a JSON array of labels, see saysOf), so a query reads a few
  // bytes instead of parsing every sample's result with all its windows (kilobytes each, and the
  // filter runs for every sample of the folder). Triggers keep it, as for samples_text, so the
  // classification store needs no knowledge of it. The index finds a sample's newest result for
  // the platform sample it is now (as ClassificationStore.latest picks it) and holds `says`, so
  // neither the filter nor the facet reads the table's rows.
  `ALTER TABLE classifications ADD COLUMN says TEXT;
   UPDATE classifications SET says = ${saysOf('result')};
   CREATE TRIGGER classifications_says_insert AFTER INSERT ON classifications BEGIN
     UPDATE classifications SET says = ${saysOf('new.result')} WHERE rowid = new.rowid;
   END;
   CREATE TRIGGER classifications_says_update AFTER UPDATE OF result ON classifications BEGIN
     UPDATE classifications SET says = ${saysOf('new.result')} WHERE rowid = new.rowid;
   END;
   CREATE INDEX classifications_newest ON classifications(sample_id, platform_sample_id, classified_at, says);`,
  // Results made on this computer by an added model (core/model/classify-sample.ts) are kept in the
  // same table with platform_sample_id 0 (LOCAL_RESULT, above): they hold whatever
  // the sample's upload state, so "a sample's newest result" is now the newest of its rows whose
  // platform_sample_id is 0 or the sample's own. The index leads with the time so that query walks
  // a sample's few results newest first and stops at the first that holds, reading `says` and the
  // platform id from the index alone (an IN over two platform ids would sort per sample instead).
  `DROP INDEX IF EXISTS classifications_newest;
   CREATE INDEX classifications_newest ON classifications(sample_id, classified_at, platform_sample_id, says);`,
  // The runs that may be changing samples/ (writer-notes.ts): a start looks through the folder for
  // files without a row only when one of them stopped without closing. The row of no run makes the
  // first start after this migration look once, for what a version before it may have left.
  `CREATE TABLE writers (
     token TEXT PRIMARY KEY,
     host TEXT NOT NULL,
     pid INTEGER NOT NULL,
     start TEXT,
     since TEXT NOT NULL
   );
   INSERT INTO writers (token, host, pid, start, since) VALUES ('${BEFORE_WRITER_NOTES}', '', 0, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));`,
  // Which process marked a sample 'uploading' (core/upload/claim-owner.ts): a start takes back only
  // the claims of processes that are gone, never those of another one still sending them.
  `ALTER TABLE samples ADD COLUMN claimed_by TEXT;`,
];

/**
 * What a kept result (a Classification as JSON) says: per learn block, the label most of its
 * windows say, ties going to the block's own label order, as summarize() ranks them
 * (classify-result.ts) — a JSON array, one entry per block that said any label. Not the summary's
 * `lead`: that is the sample's own label whenever it has one, whatever the model said. NULL when
 * the text is not JSON (such a result is not shown either), so a filter skips it. (The label's place
 * is joined, not looked up in a subquery: SQLite 3.45 cannot see `b` from a subquery in ORDER BY.)
 */
function saysOf(result: string): string {
  return `CASE WHEN json_valid(${result}) THEN (
     SELECT json_group_array(top) FROM (
       SELECT (SELECT w.key FROM json_each(b.value, '$.summary.byLabel') AS w
               LEFT JOIN json_each(b.value, '$.labels') AS l ON l.value = w.key
               ORDER BY w.value DESC, coalesce(l.key, 1e9), w.key LIMIT 1) AS top
       FROM json_each(${result}, '$.blocks') AS b
     ) WHERE top IS NOT NULL
   ) END`;
}

/**
 * What a search looks in: name, label, metadata values (not keys: "subject" would match every
 * sample that has one) and note, separated by a character nobody types, so no match spans two.
 */
function searchBody(row: string): string {
  return `${row}name || char(31) || coalesce(${row}label, '') || char(31) ||
     coalesce((SELECT group_concat(value, char(31)) FROM json_each(${row}metadata)), '') || char(31) || coalesce(${row}note, '')`;
}

/**
 * Opens the sample index. WAL lets the UI read while the queue writes; synchronous=FULL makes a
 * committed state change survive power loss, which is what "uploaded exactly once" rests on.
 */
export function openDb(dataDir: string): Db {
  const db = new Db(join(dataDir, 'samples.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > MIGRATIONS.length) {
    db.close();
    throw new Error(`The sample index in ${dataDir} was written by a newer Capture Desk (schema ${version}); update the app.`);
  }
  for (let v = version; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]!);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
  return db;
}
