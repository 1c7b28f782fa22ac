// A second Capture Desk process on the same data folder, reduced to what matters here: it claims
// a queued sample the way QueueStore.takeBatch marks a batch (state 'uploading', in one
// transaction), says "claimed" on stdout, and then never answers for it, like a process whose
// request hangs until it is killed. Usage: node claim-in-flight.mjs DATA_DIR [now]
// It claims once the other process has a sample in flight and one still queued, so the claim
// lands while that process runs; with "now", as soon as any sample is queued. The claim names this
// process as QueueStore does ("host/pid/start"; start 0: the pid alone tells whether it lives).
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';

const file = join(process.argv[2], 'samples.db');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
while (!existsSync(file)) await sleep(20);
const db = new Database(file, { timeout: 10_000 });
const claim = db.transaction(() => {
  const states = db.prepare('SELECT state, count(*) AS n FROM samples GROUP BY state').all();
  const n = (s) => states.find((r) => r.state === s)?.n ?? 0;
  if ((process.argv[3] !== 'now' && n('uploading') === 0) || n('queued') === 0) return null;
  return db.prepare("UPDATE samples SET state = 'uploading', claimed_by = ? WHERE id = (SELECT id FROM samples WHERE state = 'queued' LIMIT 1) RETURNING name")
    .pluck().get(`${hostname()}/${process.pid}/0`);
});
for (;;) {
  let name = null;
  try {
    name = claim();
  } catch {
    // The table is not there yet, or the other process holds the write lock: look again.
  }
  if (name) {
    process.stdout.write(`claimed ${name}\n`);
    break;
  }
  await sleep(10);
}
setInterval(() => {}, 60_000); // in flight until killed
