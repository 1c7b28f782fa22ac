import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fsyncDir, writeFileAtomic } from '../fs/atomic-write.js';
import type { Logger } from '../log.js';
import type { Db } from './db.js';
import type { SampleRow } from './sample-row.js';

/**
 * Every sample the store owns has a small copy of its index row beside its file:
 * `samples/<id>.meta.json`. The index (SQLite) is the truth while it is healthy; the sidecars are
 * what a rebuild reads when it is lost (see sample-rebuild.ts). They are written after the index
 * commits, in the background and in batches, so a thousand rows marked uploaded in one commit cost
 * a thousand small writes off the queue's path, not a thousand fsyncs inside it.
 */
export const SIDECAR_SUFFIX = '.meta.json';
export const SIDECAR_VERSION = 1;

/** What a sidecar keeps: the row, minus what the file itself gives back (place, size, hash) and the queue's bookkeeping. */
export type SidecarRow = Omit<SampleRow, 'file' | 'owned' | 'bytes' | 'attempts' | 'next_attempt_at' | 'error'>;
export interface Sidecar {
  sidecar: typeof SIDECAR_VERSION;
  row: SidecarRow;
}

export const sidecarName = (id: string) => `${id}${SIDECAR_SUFFIX}`;

export function sidecarOf(r: SampleRow): Sidecar {
  const { file: _f, owned: _o, bytes: _b, attempts: _a, next_attempt_at: _n, error: _e, ...row } = r;
  return { sidecar: SIDECAR_VERSION, row };
}

/** The sidecar at `path`, or why it cannot be used (absent, torn, another version). */
export async function readSidecar(path: string): Promise<{ ok: true; sidecar: Sidecar } | { ok: false; why: 'missing' | 'unreadable' }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { ok: false, why: 'missing' };
    throw err;
  }
  try {
    const parsed = JSON.parse(text) as Partial<Sidecar>;
    if (parsed.sidecar !== SIDECAR_VERSION || typeof parsed.row !== 'object' || parsed.row === null || typeof parsed.row.id !== 'string') return { ok: false, why: 'unreadable' };
    return { ok: true, sidecar: parsed as Sidecar };
  } catch {
    return { ok: false, why: 'unreadable' };
  }
}

/** Files written at once: enough for the disk to merge their flushes, few enough to leave descriptors for the rest of the app. */
const PARALLEL = 16;

/**
 * Rewrites sidecars from the index after the rows change. `mark(ids)` is cheap and synchronous
 * (callers may be inside a transaction); the rows are read when the batch is written, so a
 * rolled-back change rewrites the old row, which is harmless.
 */
export class SidecarWriter {
  readonly #dir: string;
  readonly #db: Db;
  readonly #log: Logger;
  readonly #dirty = new Set<string>();
  /** Ids whose sidecar could not be written (disk full): tried again with the next change, not in a loop. */
  readonly #failed = new Set<string>();
  #running: Promise<void> | null = null;
  /** Called before sidecars are written or removed (their temp files are in samples/ too). */
  readonly #writing: () => void;

  constructor(samplesDir: string, db: Db, log: Logger, writing: () => void = () => {}) {
    this.#dir = samplesDir;
    this.#db = db;
    this.#log = log;
    this.#writing = writing;
  }

  mark(ids: Iterable<string>): void {
    for (const id of ids) this.#dirty.add(id);
    for (const id of this.#failed) this.#dirty.add(id);
    this.#failed.clear();
    if (this.#dirty.size > 0) this.#start();
  }

  /** Resolves when every sidecar marked so far is on disk (or its failure logged). */
  async flush(): Promise<void> {
    while (this.#running) await this.#running;
  }

  async remove(id: string): Promise<void> {
    this.#dirty.delete(id);
    this.#failed.delete(id);
    await rm(join(this.#dir, sidecarName(id)), { force: true });
  }

  #start(): void {
    if (this.#running) return;
    this.#running = new Promise<void>((r) => setImmediate(r))
      .then(() => this.#drain())
      .catch((err: unknown) => this.#log.error('sample sidecars were not written; the index still has the samples', { error: String(err) }))
      .finally(() => {
        this.#running = null;
        if (this.#dirty.size > 0) this.#start();
      });
  }

  async #drain(): Promise<void> {
    while (this.#dirty.size > 0) {
      const ids = [...this.#dirty];
      this.#dirty.clear();
      const rows = this.#db.prepare('SELECT * FROM samples WHERE owned = 1 AND id IN (SELECT value FROM json_each(?))').all(JSON.stringify(ids)) as SampleRow[];
      if (rows.length > 0) this.#writing();
      const failed: string[] = [];
      for (let i = 0; i < rows.length; i += PARALLEL) {
        await Promise.all(rows.slice(i, i + PARALLEL).map((r) => this.#write(r).catch((err: unknown) => {
          failed.push(r.id);
          // The index still holds the row; only a later loss of the index would miss this change.
          this.#log.error('could not write a sample sidecar; the index still has the sample', { id: r.id, error: String(err) });
        })));
      }
      for (const id of failed) this.#failed.add(id);
      if (rows.length > failed.length) {
        await fsyncDir(this.#dir).catch((err: unknown) => this.#log.error('could not sync the samples folder after writing sidecars', { error: String(err) }));
      }
    }
  }

  /** temp file, fsync, rename; the folder is synced once per batch by #drain. */
  async #write(r: SampleRow): Promise<void> {
    await writeFileAtomic(join(this.#dir, sidecarName(r.id)), JSON.stringify(sidecarOf(r)), { syncDir: false });
  }
}
