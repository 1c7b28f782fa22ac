// Benchmark section "index": the sample index's operations before and after the move from
// better-sqlite3 to libsql, side by side in one run, through the app's own index code
// (index-ops.ts: SampleStore, ReferenceIndex, QueueStore):
//   add        10,000 references in chunks of 256 (duplicate lookup + one multi-row INSERT, one
//              transaction per chunk), as a bulk upload or a big import indexes them
//   findKnown  the same 10,000 looked up again (a re-run after a crash finds them all)
//   get        10,000 single gets by id
//   listPages  every page of 100 of the queued list, with the state counts the list shows
//   counts     100 state counts (the CLI's progress line, the status bar)
//   requeue    all 10,000 taken out of the queue and put back (dequeue + enqueue of a selection)
//   holdBack   the quality hold applied to a selection of all 10,000
//   claim      every upload batch of ≤ 1000 files taken from the queue (10 batches)
//   mark       each batch marked uploaded in one transaction
//   addSingle  200 references added one at a time, a commit (and fsync) each
// Both bindings open the same schema with the app's pragmas (WAL, synchronous=FULL), on fresh
// files; rounds alternate between them and the figures are medians of BENCH_INDEX_RUNS (5).
// The targets apply to libsql (what ships) and say what the app needs, not how fast
// better-sqlite3 was; its figures are the "before" column.
//
// better-sqlite3 is a devDependency for this comparison (and for the compatibility test of old
// indexes) only: it is not Node-API, so production code must never load it (test/packaging/native-abi.test.ts).
import { createRequire } from 'node:module';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleForNode } from '../support/audio/build-worker.mjs';

const FILES = 10_000;
const RUNS = Math.max(1, Number(process.env.BENCH_INDEX_RUNS ?? 5));

/** Per operation: its label, and the most the app can afford with libsql (null: reference only). */
const OPS = [
  { key: 'add', label: `add ${FILES.toLocaleString('en-US')} references, chunks of 256`, max: 1000, why: 'a fifth of the 5 s a 10,000-file upload may take' },
  { key: 'findKnown', label: `find ${FILES.toLocaleString('en-US')} known references, chunks of 256`, max: 250 },
  { key: 'get', label: `get by id × ${FILES.toLocaleString('en-US')}`, max: 1000, why: '< 0.1 ms each' },
  { key: 'listPages', label: `list ${FILES / 100} pages of 100 + counts`, max: 1000, why: '< 10 ms per page shown' },
  { key: 'counts', label: 'count by state × 100', max: 500, why: '< 5 ms per progress redraw' },
  { key: 'requeue', label: `dequeue + enqueue a selection of ${FILES.toLocaleString('en-US')}`, max: 1000 },
  { key: 'holdBack', label: `quality hold over a selection of ${FILES.toLocaleString('en-US')}`, max: 1000 },
  { key: 'claim', label: `claim ${FILES / 1000} upload batches of ≤ 1000`, max: 1000, why: '< 100 ms per request of 1000 files, each claim a commit with fsync' },
  { key: 'mark', label: `mark ${FILES / 1000} batches uploaded (1 transaction each)`, max: 1000, why: '< 100 ms per request of 1000 files, each mark a commit with fsync' },
  { key: 'addSingle', label: 'add 200 references one at a time (commit + fsync each)', max: null },
];

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const ms = (v) => `${v.toFixed(1)} ms`;

/** A better-sqlite3 connection set up as openDb() sets up the app's libsql one. */
function openBetterSqlite3(Better, dataDir) {
  const db = new Better(join(dataDir, 'samples.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  return db;
}

export async function run() {
  const ops = await import(pathToFileURL(await bundleForNode('test/bench/index-ops.ts')).href);
  const Better = createRequire(import.meta.url)('better-sqlite3');
  const bindings = {
    'better-sqlite3': (dir) => openBetterSqlite3(Better, dir),
    libsql: (dir) => ops.openDb(dir),
  };
  const results = { 'better-sqlite3': [], libsql: [] };
  // Round 0 is a warm-up (JIT, page cache) and is not counted: the shared JavaScript would
  // otherwise be cold for whichever binding goes first.
  for (let round = 0; round <= RUNS; round++) {
    for (const [name, open] of Object.entries(bindings)) {
      const dir = await mkdtemp(join(tmpdir(), `cd-bench-index-${name}-`));
      try {
        ops.openDb(dir).close(); // the schema, made by the app's migrations
        const db = open(dir);
        try {
          const t = ops.runIndexOps(dir, db, round === 0 ? FILES / 10 : FILES);
          if (round > 0) results[name].push(t);
        } finally {
          db.close();
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
      if (round === 0) continue;
      const t = results[name].at(-1);
      process.stderr.write(`  round ${round} ${name}: ${OPS.map((o) => `${o.key} ${t[o.key].toFixed(1)}`).join(', ')} ms\n`);
    }
  }
  const rows = [];
  for (const op of OPS) {
    const before = median(results['better-sqlite3'].map((t) => t[op.key]));
    const after = median(results.libsql.map((t) => t[op.key]));
    rows.push({ name: `index: ${op.label}, before (better-sqlite3)`, value: before, unit: 'ms', target: 'reference', pass: null });
    rows.push({
      name: `index: ${op.label}, after (libsql)`, value: after, unit: 'ms',
      target: op.max === null ? 'reference' : `< ${op.max} ms`, pass: op.max === null ? null : after < op.max,
      detail: `after / before = ${(after / before).toFixed(2)}×; median of ${RUNS} (${results.libsql.map((t) => ms(t[op.key])).join(', ')})${op.why ? `; target: ${op.why}` : ''}`,
    });
  }
  return rows;
}
