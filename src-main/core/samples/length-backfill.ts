import { isAbsolute, join } from 'node:path';
import type { Logger } from '../log.js';
import { lengthOfFile } from './formats/file-length.js';
import type { SampleStore } from './sample-store.js';

/** Samples looked at per round: one SELECT, reads a few at a time, one UPDATE. */
const BATCH = 200;
/** Files read at once: the disk stays busy without crowding out what the user is doing. */
const LANES = 4;

// A take kept without its sampling rate is written 1 ms a row until it gets one (set-rate.ts): its
// file tells no true length, so it is marked looked-at and keeps none.
const TODO = `SELECT id, name, file, bytes, coalesce(json_extract(extra, '$.rate_missing'), 0) AS rate_missing FROM samples INDEXED BY samples_length_unknown
  WHERE length_ms IS NULL AND length_checked = 0 AND kind IN ('sensor', 'audio') LIMIT ${BATCH}`;
const DONE = `UPDATE samples SET length_ms = coalesce(length_ms, r.value ->> 1), length_checked = 1
  FROM json_each(?) AS r WHERE samples.id = r.value ->> 0`;

/**
 * Gives a length to sensor and audio samples indexed without one (by versions that did not read it
 * from the file: `upload`, watched folders, "Add files"), from the header of each file, in the
 * background after the app has started: lazily rather than when the index opens, because opening
 * is on the path of every command and of the window's first paint, and 50,000 referenced files (on
 * a slow or unplugged drive) would hold both up for what is only a column in the table. Each sample
 * is looked at once (length_checked): a file that is gone or tells no length keeps "unknown" and is
 * not read again at every start. Views hear of the new lengths through `changed`.
 */
export function startLengthBackfill(store: SampleStore, log: Logger, changed: (ids: string[]) => void, delayMs = 2000): { stop(): Promise<void> } {
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const timer = setTimeout(() => {
    running = fillLengths(store, changed, () => stopped).then(
      (n) => {
        if (n > 0) log.info('lengths read from the files of samples indexed without one', { samples: n });
      },
      (err: unknown) => log.warn('reading the lengths of older samples stopped', { error: String(err) }),
    );
  }, delayMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

/** Works through every sample without a length until none is left or `stop()` says so; returns how many got one. */
export async function fillLengths(store: SampleStore, changed: (ids: string[]) => void, stop: () => boolean = () => false): Promise<number> {
  const todo = store.db.prepare(TODO);
  const done = store.db.prepare(DONE);
  let found = 0;
  while (!stop()) {
    const rows = todo.all() as Array<{ id: string; name: string; file: string; bytes: number; rate_missing: number }>;
    if (rows.length === 0) break;
    const lengths: Array<number | null> = new Array(rows.length);
    let next = 0;
    await Promise.all(Array.from({ length: Math.min(LANES, rows.length) }, async () => {
      while (next < rows.length && !stop()) {
        const i = next++;
        const r = rows[i]!;
        lengths[i] = r.rate_missing ? null : await lengthOfFile(isAbsolute(r.file) ? r.file : join(store.dataDir, r.file), r.name, r.bytes);
      }
    }));
    if (stop()) break;
    done.run(JSON.stringify(rows.map((r, i) => [r.id, lengths[i] ?? null])));
    const measured = rows.filter((_, i) => lengths[i] !== null).map((r) => r.id);
    if (measured.length > 0) {
      found += measured.length;
      store.changed(measured); // the sidecars of owned samples carry the length too
      changed(measured);
    }
    await new Promise((r) => setImmediate(r)); // the app's own calls go first
  }
  return found;
}
