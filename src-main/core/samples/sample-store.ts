import { mkdir, rename, rm } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import type { IndexRebuild, Sample } from '../contract/contract.js';
import { CoreError } from '../errors.js';
import { fsyncDir, writeFileAtomic } from '../fs/atomic-write.js';
import { storageError } from '../fs/storage-error.js';
import type { Logger } from '../log.js';
import type { Db } from './db.js';
import { lengthFromBytes } from './formats/sample-length.js';
import { indexOpenError, indexSaved, makeSamplesFolder } from './index-errors.js';
import { DB_FILE, openIndex } from './index-open.js';
import { KeptBytes } from './kept-bytes.js';
import { INSERT_ROW, newRow, type NewSample, type RowPlace } from './new-sample.js';
import { recoverOrphans } from './orphan-recovery.js';
import type { QualityFile } from './quality/check-sample.js';
import type { QualityGate, QualityVerdict } from './quality/policy.js';
import { QualityHold } from './quality-hold.js';
import { ReferenceIndex } from './reference-index.js';
import { measureFile, ownFileName, readPinnedFile, sampleFilePath, SAMPLES_DIR, sha256, storedName } from './sample-files.js';
import { newSampleId } from './sample-id.js';
import { SampleReads } from './sample-reads.js';
import { rowToSample, type SampleRow } from './sample-row.js';
import { SidecarWriter } from './sidecar.js';
import { stageCopies, type NewCopy, type StagedCopies } from './staged-copies.js';
import { forgetGone, WriterNote, writersToCheck } from './writer-notes.js';

export interface SampleStoreOptions {
  /** Checks every new sample before it is indexed and holds flagged ones back from the queue (the app wires it; the CLI does not). */
  quality?: QualityGate;
}

export type SamplePatch = Partial<Pick<Sample, 'label' | 'category' | 'metadata'>>;

/**
 * Samples = files + one row each in SQLite. A file is complete on disk (atomic write) before its
 * row exists, so the index never points at a torn file; a file without a row (crash between the
 * two) is found and re-indexed at the next start (orphan-recovery.ts), which looks for such files
 * only when a run stopped without closing its store, or a change here failed partway
 * (writer-notes.ts): every change to samples/ runs through #changing. The reads are SampleReads';
 * this class adds, changes and removes samples.
 */
export class SampleStore extends SampleReads {
  readonly dataDir: string;
  readonly #log: Logger;
  readonly #hold: QualityHold;
  readonly #kept = new KeptBytes();
  readonly #sidecars: SidecarWriter;
  readonly #writer: WriterNote;
  /** Temp paths handed out by reserveFile and not yet moved into place: at close, a file may be left there. */
  readonly #reserved = new Set<string>();
  #references: ReferenceIndex | null = null;
  #closed = false;
  /** Set when this start found the index lost and rebuilt it; null otherwise. */
  indexRebuild: IndexRebuild | null = null;

  private constructor(dataDir: string, db: Db, log: Logger, opts: SampleStoreOptions) {
    super(db);
    this.dataDir = dataDir;
    this.#log = log;
    this.#writer = new WriterNote(db, join(dataDir, DB_FILE));
    this.#sidecars = new SidecarWriter(join(dataDir, SAMPLES_DIR), db, log, () => this.#writer.note());
    this.#hold = new QualityHold(opts.quality ?? null, db, (sql) => this.stmt(sql), (ids) => this.changed(ids), log);
  }

  static async open(dataDir: string, log: Logger, opts: SampleStoreOptions = {}): Promise<SampleStore> {
    await makeSamplesFolder(dataDir);
    let index: ReturnType<typeof openIndex>;
    try {
      index = openIndex(dataDir, log);
    } catch (err) {
      throw (await indexOpenError(dataDir, err)) ?? err;
    }
    const store = new SampleStore(dataDir, index.db, log, opts);
    try {
      const lost = index.damage ?? (index.created ? { reason: 'samples.db was missing', keptAs: [] } : null);
      const writers = writersToCheck(index.db, dataDir);
      if (lost || writers.look) {
        store.indexRebuild = await recoverOrphans(dataDir, index.ownedNames(), lost, log, (rows) => store.db.transaction(() => rows.forEach((r) => store.#insertRow(r)))());
        forgetGone(index.db, dataDir, writers.gone);
      }
    } catch (err) {
      index.db.close();
      throw err;
    }
    return store;
  }

  /** Writes the sidecars still owed, then closes the index. */
  async close(opts: { foldJournal?: boolean } = {}): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.#sidecars.flush();
      // Every file this run wrote has its row (the writes are awaited by their callers, and none
      // failed partway): a later start need not look. A reserved file never committed may be there.
      if (this.#reserved.size > 0) this.#writer.keep();
      try {
        this.#writer.clear();
      } catch (err) {
        // The note stays: the next start looks through samples/ once, which is all it costs.
        this.#log.warn('the index kept this run\'s note as a writer of samples/; the next start looks for files without a row', { error: String(err) });
      }
      // Folds the WAL into samples.db, so the file alone (a backup, a copy to another machine) is the whole index.
      // A short CLI run may skip it (it costs ~100 ms after a 10,000-file upload): the next open folds it in.
      if (opts.foldJournal !== false) this.db.pragma('wal_checkpoint(TRUNCATE)');
    } catch (err) {
      // A full disk can refuse the checkpoint: the committed changes stay in the WAL, which the next
      // open replays, so nothing is lost by closing anyway.
      this.#log.warn('the index was closed without folding its journal into samples.db; the next start replays it', { error: String(err) });
    } finally {
      this.db.close();
    }
  }

  /** Resolves once the sidecars of every change so far are written (tests, and before a shell exits). */
  flushSidecars(): Promise<void> {
    return this.#sidecars.flush();
  }

  /**
   * Writers that change rows with their own SQL (the upload queue, a move on the platform) say
   * which, so those samples' sidecars follow. Cheap: the writes happen after the commit, batched.
   */
  changed(ids: Iterable<string>): void {
    this.#sidecars.mark(ids);
  }

  /**
   * Stores bytes we own (a capture, a signed copy of an import) in the data directory. `source`
   * names the file they were made from, so importing it again finds this sample.
   */
  async addBytes(input: NewSample, bytes: Uint8Array, source?: { path: string; sha256: string }): Promise<Sample> {
    const id = newSampleId();
    const rel = storedName(ownFileName(id, input.name));
    return this.#changing(async () => {
      // A full disk is said as a sentence naming the folder; the caller still holds the bytes.
      await writeFileAtomic(join(this.dataDir, rel), bytes).catch((err: unknown) => Promise.reject(storageError(err, join(this.dataDir, SAMPLES_DIR))));
      // A dropped file or an import says no length: its header (or payload) tells it.
      if (input.lengthMs === undefined) input = { ...input, lengthMs: lengthFromBytes(input.name, bytes) };
      const verdict = await this.inspect({ bytes }, input);
      return indexSaved(this.dataDir, rel, () => this.#insert(id, input, { file: rel, owned: true, source: source ?? null, bytes: bytes.byteLength, sha256: sha256(bytes) }, verdict));
    });
  }

  /**
   * addBytes for many at once (an import of single files), with its guarantee kept per batch: no
   * row ever points at a torn file. Every file (under a temp name) and its sidecar are written and
   * made durable together (fs/synced-writes.ts: one sync of the file system, not an fsync per
   * file), then the files are moved into place, the folder synced once, and all rows inserted in
   * one transaction. A crash before the commit leaves either temp files, which the next start
   * removes (nothing was added: run the import again; a sidecar left beside no file is never
   * read), or whole files beside whole sidecars, which the next start indexes from their sidecars
   * as the commit would have, source included (running the import again finds them). Samples
   * come back in the order given.
   */
  async addCopies(items: readonly NewCopy[]): Promise<Sample[]> {
    return (await this.stageCopies(items)).commit();
  }

  /**
   * addCopies in two steps, for a caller that prepares its next batch while this one is written:
   * the rows are made and the files start being written and synced at once; `commit` (in the
   * order batches must be indexed) waits for them, moves them into place and indexes them;
   * `discard` removes them instead (an earlier batch failed).
   */
  async stageCopies(items: readonly NewCopy[]): Promise<StagedCopies> {
    const staged = await this.#changing(() => stageCopies({
      dir: join(this.dataDir, SAMPLES_DIR),
      inspect: (file, input) => this.inspect(file, input),
      index: (rows) => {
        this.#references ??= new ReferenceIndex(this.db);
        const index = this.#references;
        // The sidecars are on disk already: the rows go in without being marked for the SidecarWriter.
        indexSaved(this.dataDir, rows.length === 1 ? rows[0]!.file : SAMPLES_DIR, () => this.db.transaction(() => index.writeRows(rows))(), rows.length);
      },
    }, items));
    return { commit: () => this.#changing(() => staged.commit()), discard: () => this.#changing(() => staged.discard()) };
  }

  /**
   * For writers that stream a big file (recordings): write to `tempPath` (inside the samples
   * folder, so the rename is atomic), then `commitFile` moves it into place and indexes it.
   */
  reserveFile(ext: string): { id: string; tempPath: string } {
    this.#writer.note();
    const id = newSampleId();
    const tempPath = join(this.dataDir, SAMPLES_DIR, `.${id}${ext}.tmp`);
    this.#reserved.add(tempPath);
    return { id, tempPath };
  }

  async commitFile(reserved: { id: string; tempPath: string }, input: NewSample): Promise<Sample> {
    const rel = storedName(ownFileName(reserved.id, input.name));
    return this.#changing(async () => {
      const measured = await measureFile(reserved.tempPath);
      // Checked before it is indexed: a sample the setting holds back is never in the queue, not even for a moment.
      const verdict = await this.inspect({ path: reserved.tempPath }, input);
      await rename(reserved.tempPath, join(this.dataDir, rel));
      this.#reserved.delete(reserved.tempPath);
      await fsyncDir(join(this.dataDir, SAMPLES_DIR));
      return indexSaved(this.dataDir, rel, () => this.#insert(reserved.id, input, { file: rel, owned: true, source: null, ...measured }, verdict));
    });
  }

  /**
   * Several files written to reserved temp paths become samples together (a split): all are moved
   * into place, then all rows are inserted in one transaction. If anything fails, none is kept.
   */
  async commitFiles(items: Array<{ reserved: { id: string; tempPath: string }; input: NewSample; bytes: number; sha256: string }>): Promise<Sample[]> {
    const placed: string[] = [];
    this.#writer.note();
    try {
      for (const it of items) {
        const rel = storedName(ownFileName(it.reserved.id, it.input.name));
        await rename(it.reserved.tempPath, join(this.dataDir, rel));
        this.#reserved.delete(it.reserved.tempPath);
        placed.push(rel);
      }
      await fsyncDir(join(this.dataDir, SAMPLES_DIR));
      return this.db.transaction(() =>
        items.map((it, i) => this.#insert(it.reserved.id, it.input, { file: placed[i]!, owned: true, source: null, bytes: it.bytes, sha256: it.sha256 })),
      )();
    } catch (err) {
      this.#writer.keep(); // until the files are gone: a failed rm below leaves one
      for (const rel of placed) await rm(join(this.dataDir, rel), { force: true });
      for (const it of items) await rm(it.reserved.tempPath, { force: true });
      throw err;
    }
  }

  /** Indexes a file where it lies (bulk upload): no copy, its hash pins the content we promised to send. */
  addReference(input: NewSample, ref: { path: string; bytes: number; sha256: string }, verdict: QualityVerdict | null = null): Sample {
    if (!isAbsolute(ref.path)) throw new Error('addReference needs an absolute path');
    return this.#insert(newSampleId(), input, { file: ref.path, owned: false, source: { path: ref.path, sha256: ref.sha256 }, bytes: ref.bytes, sha256: ref.sha256 }, verdict);
  }

  /** Many references in one transaction: one commit per chunk, not one per file. */
  addReferences(items: Array<{ input: NewSample; ref: { path: string; bytes: number; sha256: string } }>): Sample[] {
    return this.db.transaction(() => items.map((i) => this.addReference(i.input, i.ref)))();
  }

  /**
   * The data-quality verdict for a new sample, or null when this store checks nothing (the CLI's
   * one-shot commands). Callers that index with addReference ask for it first.
   */
  inspect(file: QualityFile, input: NewSample): Promise<QualityVerdict | null> {
    return this.#hold.inspect(file, input);
  }

  /** The hold setting of the quality gate, 'off' when this store has none. */
  holdPolicy(): 'errors' | 'all' | 'off' {
    return this.#hold.policy();
  }

  /** Stores a new quality report (re-check); the queue state is left as it is. */
  setQuality(id: string, verdict: Pick<QualityVerdict, 'report' | 'flagged'>): void {
    this.#hold.setQuality(id, verdict);
  }

  /** Of these ids, the ones the hold setting keeps out of the queue (QualityHold.holdBack). */
  holdBack(ids: string[], force: boolean): string[] {
    return this.#hold.holdBack(ids, force);
  }

  /** Keeps bytes just hashed for `id`, so the upload sends exactly them without reading the file again. */
  keepBytes(id: string, bytes: Buffer): void {
    this.#kept.keep(id, bytes);
  }

  async readBytes(s: Pick<Sample, 'id' | 'name' | 'file' | 'sha256'>): Promise<Buffer> {
    return this.#kept.take(s.id) ?? readPinnedFile(this.dataDir, s);
  }

  /**
   * Where another thread reads a sample from (a model worker reads its samples itself): the bytes
   * still held (a take just written, handed over once as readBytes does), else its file, to be
   * checked there against the pinned hash (readPinnedFileSync).
   */
  sourceOf(s: Pick<Sample, 'id' | 'file'>): { bytes: Buffer } | { path: string } {
    const held = this.#kept.take(s.id);
    return held ? { bytes: held } : { path: sampleFilePath(this.dataDir, s) };
  }

  update(id: string, patch: SamplePatch): Sample {
    const s = this.get(id);
    if (s.state === 'uploading' || s.state === 'uploaded') {
      throw new CoreError('Busy', `Sample "${s.name}" is ${s.state}; change it on the platform instead (or move it between categories there).`);
    }
    const next = { ...s, ...patch };
    this.db
      .prepare('UPDATE samples SET label = ?, category = ?, metadata = ? WHERE id = ?')
      .run(next.label, next.category, JSON.stringify(next.metadata), id);
    this.#sidecars.mark([id]);
    return this.get(id);
  }

  async delete(id: string): Promise<void> {
    const s = this.get(id);
    if (s.state === 'uploading') throw new CoreError('Busy', `Sample "${s.name}" is being uploaded; wait for it to finish, then delete it.`);
    await this.#changing(async () => {
      this.db.prepare('DELETE FROM samples WHERE id = ?').run(id);
      if (!isAbsolute(s.file)) {
        await rm(join(this.dataDir, s.file), { force: true });
        await this.#sidecars.remove(id);
      }
    });
  }

  /**
   * Deletes many samples in one statement (a bulk delete of thousands), then the files this folder
   * owns and their sidecars, a few at a time. A sample being uploaded is left as it is. Returns the
   * ids deleted.
   */
  async deleteMany(ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    return this.#changing(async () => {
      const rows = this.db.transaction(() =>
        this.stmt("DELETE FROM samples WHERE id IN (SELECT value FROM json_each(?)) AND state != 'uploading' RETURNING id, file, owned").all(JSON.stringify(ids)),
      )() as Array<{ id: string; file: string; owned: number }>;
      const owned = rows.filter((r) => r.owned === 1 && !isAbsolute(r.file));
      for (let i = 0; i < owned.length; i += 16) {
        await Promise.all(owned.slice(i, i + 16).map(async (r) => {
          await rm(join(this.dataDir, r.file), { force: true });
          await this.#sidecars.remove(r.id);
        }));
      }
      return rows.map((r) => r.id);
    });
  }

  /**
   * Puts a rewritten file (written to `reserved.tempPath` from reserveFile) in place of a sample's
   * own file, atomically, and records what changed. Used to finish a sample that waited for its
   * rate: the same sample, now encoded with it.
   */
  async replaceFile(id: string, reserved: { tempPath: string }, patch: { lengthMs: number | null; incomplete: boolean; note: string | null; extra: Record<string, unknown> }): Promise<Sample> {
    const s = this.get(id);
    if (isAbsolute(s.file)) throw new CoreError('InvalidArguments', `Sample "${s.name}" is a file outside the data folder (${s.file}); it is not rewritten in place.`);
    const measured = await measureFile(reserved.tempPath);
    await this.#changing(async () => {
      await rename(reserved.tempPath, join(this.dataDir, s.file));
      this.#reserved.delete(reserved.tempPath);
      await fsyncDir(join(this.dataDir, SAMPLES_DIR));
    });
    this.stmt('UPDATE samples SET bytes = ?, sha256 = ?, length_ms = ?, incomplete = ?, note = ?, extra = ? WHERE id = ?')
      .run(measured.bytes, measured.sha256, patch.lengthMs, patch.incomplete ? 1 : 0, patch.note, JSON.stringify(patch.extra), id);
    // The sidecar carries rate_missing and the hash: a rebuilt index must see the finished take.
    this.changed([id]);
    return this.get(id);
  }

  /**
   * A change to samples/ (a file written, moved or removed): this run is noted first as one that
   * may leave a file without a row; if the change fails partway, the note outlives the close, so
   * the next start looks for what it left.
   */
  async #changing<T>(work: () => Promise<T>): Promise<T> {
    this.#writer.note();
    try {
      return await work();
    } catch (err) {
      this.#writer.keep();
      throw err;
    }
  }

  #insert(id: string, input: NewSample, where: RowPlace, verdict: QualityVerdict | null = null): Sample {
    const row = newRow(id, input, where, verdict);
    this.#insertRow(row);
    return rowToSample(row);
  }

  #insertRow(row: SampleRow): void {
    this.stmt(INSERT_ROW).run(row);
    if (row.owned === 1) this.#sidecars.mark([row.id]);
  }
}
