// Over 400 lines for now: the import work is changing it; then split by idea (adding files, the quality hold, recovering orphans).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { basename, extname, isAbsolute, join, posix, sep } from 'node:path';
import type { BoundingBox, Category, IndexRebuild, Sample, SampleKind, SampleState, StructuredLabel } from '../contract/contract.js';
import { CoreError } from '../errors.js';
import { fsyncDir, writeFileAtomic } from '../fs/atomic-write.js';
import type { Logger } from '../log.js';
import type { BindValue, Db, Statement } from './db.js';
import { openIndex, type IndexDamage } from './index-open.js';
import { FLAGGED_LEVEL, rowToSample, type SampleRow } from './sample-row.js';
import { errorCode, storageProblemAt } from '../fs/storage-error.js';
import type { RebuiltRow } from './sample-rebuild.js';
import { newSampleId } from './sample-id.js';
import { ReferenceIndex } from './reference-index.js';
import { lengthFromBytes } from './formats/sample-length.js';
import { readSidecar, SIDECAR_SUFFIX, SidecarWriter, sidecarName, sidecarOf } from './sidecar.js';
import { removeAll, renameAll, writeSynced, type SyncedWrite } from '../fs/synced-writes.js';
import type { QualityFile } from './quality/check-sample.js';
import type { QualityGate, QualityVerdict } from './quality/policy.js';

export interface NewSample {
  name: string;
  kind: SampleKind;
  label: string | null;
  category: Category;
  metadata?: Record<string, string>;
  boundingBoxes?: BoundingBox[];
  structuredLabels?: StructuredLabel[] | null;
  lengthMs?: number | null;
  incomplete?: boolean;
  addDateId?: boolean;
  allowDuplicates?: boolean;
  /** Queue it for upload straight away. */
  queue?: boolean;
  note?: string | null;
  extra?: Record<string, unknown>;
}

/** Bytes we own that become one sample of a batch (addCopies). */
export interface NewCopy {
  input: NewSample;
  bytes: Uint8Array;
  /** The file they were made from, so importing it again finds this sample; null = none (a CSV made into CBOR). */
  source: { path: string; sha256: string } | null;
  /** The bytes' hash when the caller has it (a bulk import hashes every file as it reads it). */
  sha256?: string;
}

/** A batch of copies written to temp names (SampleStore.stageCopies), to be indexed or thrown away. */
export interface StagedCopies {
  /** Waits for the files, moves them into place and indexes them; their samples, in order. */
  commit(): Promise<Sample[]>;
  /** Removes the temp files instead. */
  discard(): Promise<void>;
}

/** Where a new row's file is and what it holds. */
interface RowPlace {
  file: string;
  owned: boolean;
  source: { path: string; sha256: string } | null;
  bytes: number;
  sha256: string;
}

export interface SampleStoreOptions {
  /** Checks every new sample before it is indexed and holds flagged ones back from the queue (the app wires it; the CLI does not). */
  quality?: QualityGate;
}

export interface SampleFilter {
  states?: SampleState[];
  /** true: only samples with a quality finding; false: only those without. */
  flagged?: boolean;
  /** Only these samples. */
  ids?: string[];
  limit?: number;
  offset?: number;
}

export type SamplePatch = Partial<Pick<Sample, 'label' | 'category' | 'metadata'>>;

export const SAMPLES_DIR = 'samples';
/** The index stores a sample's place relative to the data folder with '/', the same on every OS (join() reads it on Windows too). */
const storedName = (file: string) => posix.join(SAMPLES_DIR, file);
/** Bytes kept between hashing a file and sending it, so a bulk upload reads each file once. */
const BYTE_CACHE_LIMIT = 64 * 1024 * 1024;

/**
 * Samples = files + one row each in SQLite. A file is complete on disk (atomic write) before its
 * row exists, so the index never points at a torn file; a file without a row (crash between the
 * two) is found and re-indexed at the next start.
 */
export class SampleStore {
  readonly db: Db;
  readonly dataDir: string;
  readonly #log: Logger;
  readonly #quality: QualityGate | null;
  readonly #statements = new Map<string, Statement>();
  readonly #bytes = new Map<string, Buffer>();
  readonly #sidecars: SidecarWriter;
  #references: ReferenceIndex | null = null;
  #cachedBytes = 0;
  #closed = false;
  /** Set when this start found the index lost and rebuilt it; null otherwise. */
  indexRebuild: IndexRebuild | null = null;

  private constructor(dataDir: string, db: Db, log: Logger, opts: SampleStoreOptions) {
    this.dataDir = dataDir;
    this.db = db;
    this.#log = log;
    this.#quality = opts.quality ?? null;
    this.#sidecars = new SidecarWriter(join(dataDir, SAMPLES_DIR), db, log);
  }

  static async open(dataDir: string, log: Logger, opts: SampleStoreOptions = {}): Promise<SampleStore> {
    await mkdir(join(dataDir, SAMPLES_DIR), { recursive: true });
    let index: ReturnType<typeof openIndex>;
    try {
      index = openIndex(dataDir, log);
    } catch (err) {
      const problem = await storageProblemAt(dataDir, err);
      if (problem === null) throw err;
      throw new CoreError('Unavailable',
        `Cannot open the sample index ${join(dataDir, 'samples.db')}: ${problem === 'full' ? 'the disk is full' : 'it cannot be written'} (${errorCode(err)}). Nothing was changed. ` +
          `${problem === 'full' ? 'Free some space on that disk' : 'Make the data folder writable'}, then start again.`,
        { path: dataDir });
    }
    const store = new SampleStore(dataDir, index.db, log, opts);
    try {
      await store.#recoverOrphans(index.ownedFiles, index.damage ?? (index.created ? { reason: 'samples.db was missing', keptAs: [] } : null));
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
    const rel = storedName(`${id}${extname(input.name).toLowerCase() || '.bin'}`);
    await writeFileAtomic(join(this.dataDir, rel), bytes);
    // A dropped file or an import says no length: its header (or payload) tells it.
    if (input.lengthMs === undefined) input = { ...input, lengthMs: lengthFromBytes(input.name, bytes) };
    const verdict = await this.inspect({ bytes }, input);
    return this.#indexSaved(rel, () => this.#insert(id, input, { file: rel, owned: true, source: source ?? null, bytes: bytes.byteLength, sha256: sha256(bytes) }, verdict));
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
    const dir = join(this.dataDir, SAMPLES_DIR);
    const rows: SampleRow[] = [];
    const sidecars: SyncedWrite[] = [];
    const files: SyncedWrite[] = [];
    for (const it of items) {
      const id = newSampleId();
      const file = `${id}${extname(it.input.name).toLowerCase() || '.bin'}`;
      const input = it.input.lengthMs === undefined ? { ...it.input, lengthMs: lengthFromBytes(it.input.name, it.bytes) } : it.input;
      const verdict = await this.inspect({ bytes: it.bytes }, input);
      const row = this.#rowOf(id, input, { file: storedName(file), owned: true, source: it.source, bytes: it.bytes.byteLength, sha256: it.sha256 ?? sha256(it.bytes) }, verdict);
      rows.push(row);
      // The sidecar the SidecarWriter would write after the commit, written before it instead, and
      // under its own name: it is new, it is synced before its file is moved into place, and one
      // that a crash tore has no file beside it, so nothing reads it (a rename each cost 6 % of an import).
      const side = `${dir}${sep}${sidecarName(id)}`;
      sidecars.push({ temp: side, to: side, data: Buffer.from(JSON.stringify(sidecarOf(row))) });
      // `dir` is normalized and the names have no separator: no path.join per file.
      files.push({ temp: `${dir}${sep}.${file}.tmp`, to: `${dir}${sep}${file}`, data: it.bytes });
    }
    const written = rows.length === 0 ? Promise.resolve() : writeSynced(dir, [...sidecars, ...files]);
    written.catch(() => {}); // awaited by commit or discard
    const sidecarPaths = sidecars.map((f) => f.to);
    return {
      commit: async () => {
        if (rows.length === 0) return [];
        await written;
        try {
          await renameAll(files);
        } catch (err) {
          await removeAll(sidecarPaths);
          throw err;
        }
        await fsyncDir(dir);
        this.#references ??= new ReferenceIndex(this.db);
        const index = this.#references;
        // The sidecars are on disk already: the rows go in without being marked for the SidecarWriter.
        this.#indexSaved(rows.length === 1 ? rows[0]!.file : SAMPLES_DIR, () => this.db.transaction(() => index.writeRows(rows))(), rows.length);
        return rows.map(rowToSample);
      },
      discard: async () => {
        if (await written.then(() => true, () => false)) await removeAll([...sidecarPaths, ...files.map((f) => f.temp)]);
      },
    };
  }

  /**
   * For writers that stream a big file (recordings): write to `tempPath` (inside the samples
   * folder, so the rename is atomic), then `commitFile` moves it into place and indexes it.
   */
  reserveFile(ext: string): { id: string; tempPath: string } {
    const id = newSampleId();
    return { id, tempPath: join(this.dataDir, SAMPLES_DIR, `.${id}${ext}.tmp`) };
  }

  async commitFile(reserved: { id: string; tempPath: string }, input: NewSample): Promise<Sample> {
    const rel = storedName(`${reserved.id}${extname(input.name).toLowerCase() || '.bin'}`);
    const hash = createHash('sha256');
    let bytes = 0;
    for await (const chunk of createReadStream(reserved.tempPath)) {
      hash.update(chunk as Buffer);
      bytes += (chunk as Buffer).length;
    }
    // Checked before it is indexed: a sample the setting holds back is never in the queue, not even for a moment.
    const verdict = await this.inspect({ path: reserved.tempPath }, input);
    await rename(reserved.tempPath, join(this.dataDir, rel));
    await fsyncDir(join(this.dataDir, SAMPLES_DIR));
    return this.#indexSaved(rel, () => this.#insert(reserved.id, input, { file: rel, owned: true, source: null, bytes, sha256: hash.digest('hex') }, verdict));
  }

  /**
   * The data-quality verdict for a new sample, or null when this store checks nothing (the CLI's
   * one-shot commands). Callers that index with addReference ask for it first.
   */
  async inspect(file: QualityFile, input: NewSample): Promise<QualityVerdict | null> {
    if (!this.#quality) return null;
    try {
      return await this.#quality.inspect(file, input);
    } catch (err) {
      // A bug in a check must never lose a capture: index it unchecked and say so in the log.
      this.#log.error('quality check crashed', { name: input.name, error: String(err) });
      return null;
    }
  }

  /** The hold setting of the quality gate, 'off' when this store has none. */
  holdPolicy(): 'errors' | 'all' | 'off' {
    return this.#quality?.policy() ?? 'off';
  }

  /**
   * Several files written to reserved temp paths become samples together (a split): all are moved
   * into place, then all rows are inserted in one transaction. If anything fails, none is kept.
   */
  async commitFiles(items: Array<{ reserved: { id: string; tempPath: string }; input: NewSample; bytes: number; sha256: string }>): Promise<Sample[]> {
    const placed: string[] = [];
    try {
      for (const it of items) {
        const rel = storedName(`${it.reserved.id}${extname(it.input.name).toLowerCase() || '.bin'}`);
        await rename(it.reserved.tempPath, join(this.dataDir, rel));
        placed.push(rel);
      }
      await fsyncDir(join(this.dataDir, SAMPLES_DIR));
      return this.db.transaction(() =>
        items.map((it, i) => this.#insert(it.reserved.id, it.input, { file: placed[i]!, owned: true, source: null, bytes: it.bytes, sha256: it.sha256 })),
      )();
    } catch (err) {
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
   * Keeps bytes just hashed for `id` so the upload sends exactly them without reading the file
   * again. Bounded; what does not fit is read from disk (and checked against the hash) later.
   */
  keepBytes(id: string, bytes: Buffer): void {
    if (this.#cachedBytes + bytes.length > BYTE_CACHE_LIMIT) return;
    this.#bytes.set(id, bytes);
    this.#cachedBytes += bytes.length;
  }

  /** The sample made from this file with this content, if any. */
  findBySource(path: string, hash: string): Sample | null {
    const row = this.#stmt('SELECT * FROM samples WHERE source_path = ? AND source_sha256 = ? ORDER BY created DESC LIMIT 1').get(path, hash) as SampleRow | undefined;
    return row ? rowToSample(row) : null;
  }

  get(id: string): Sample {
    const row = this.#stmt('SELECT * FROM samples WHERE id = ?').get(id) as SampleRow | undefined;
    if (!row) throw new CoreError('NotFound', `No sample with id ${id}; it may have been deleted.`);
    return rowToSample(row);
  }

  /** These samples, in one statement (a bulk import's thousands); ids that no longer exist are left out. */
  getMany(ids: readonly string[]): Map<string, Sample> {
    const found = new Map<string, Sample>();
    if (ids.length === 0) return found;
    const rows = this.#stmt('SELECT * FROM samples WHERE id IN (SELECT value FROM json_each(?))').all(JSON.stringify(ids)) as SampleRow[];
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

  /** Stores a new quality report (re-check); the queue state is left as it is. */
  setQuality(id: string, verdict: Pick<QualityVerdict, 'report' | 'flagged'>): void {
    this.#stmt('UPDATE samples SET quality = ?, flagged = ? WHERE id = ?').run(JSON.stringify(verdict.report), verdict.flagged ? FLAGGED_LEVEL[verdict.flagged] : 0, id);
    this.#sidecars.mark([id]);
  }

  /**
   * Of these ids, the ones the hold setting keeps out of the queue: not yet sent and flagged at
   * the held severity. They are marked held_back; the others, and all of them when forced ("Upload
   * anyway"), lose the mark.
   */
  holdBack(ids: string[], force: boolean): string[] {
    const policy = this.holdPolicy();
    const min = policy === 'all' ? FLAGGED_LEVEL.warning : FLAGGED_LEVEL.error;
    const all = JSON.stringify(ids);
    return this.db.transaction(() => {
      const rows = this.#stmt("SELECT id, flagged FROM samples WHERE id IN (SELECT value FROM json_each(?)) AND state IN ('local', 'failed', 'rejected')").all(all) as Array<{ id: string; flagged: number }>;
      const flagged = new Map(rows.map((r) => [r.id, r.flagged]));
      const held = ids.filter((id) => !force && policy !== 'off' && (flagged.get(id) ?? -1) >= min);
      this.#stmt('UPDATE samples SET held_back = id IN (SELECT value FROM json_each(?)) WHERE id IN (SELECT value FROM json_each(?))').run(JSON.stringify(held), all);
      this.#sidecars.mark(ids);
      return held;
    })();
  }

  /** Just the verdicts, for summaries over many samples without building whole Sample objects. */
  /**
   * Where these samples stand (state, and the platform's note or error), in one statement: a run
   * asks about its own files, never the whole index (a data folder may hold years of captures).
   * A sample that no longer exists is absent from the map.
   */
  verdicts(ids: readonly string[]): Map<string, Pick<Sample, 'state' | 'note' | 'error'>> {
    const found = new Map<string, Pick<Sample, 'state' | 'note' | 'error'>>();
    if (ids.length === 0) return found;
    const rows = this.#stmt('SELECT id, state, note, error FROM samples WHERE id IN (SELECT value FROM json_each(?))').all(JSON.stringify(ids)) as Array<{ id: string; state: SampleState; note: string | null; error: string | null }>;
    for (const r of rows) found.set(r.id, { state: r.state, note: r.note, error: r.error });
    return found;
  }

  counts(): Record<SampleState, number> {
    const counts: Record<SampleState, number> = { local: 0, queued: 0, uploading: 0, uploaded: 0, failed: 0, rejected: 0 };
    for (const r of this.#stmt('SELECT state, COUNT(*) AS n FROM samples GROUP BY state').all() as Array<{ state: SampleState; n: number }>) counts[r.state] = r.n;
    return counts;
  }

  async readBytes(s: Pick<Sample, 'id' | 'name' | 'file' | 'sha256'>): Promise<Buffer> {
    const kept = this.#bytes.get(s.id);
    if (kept) {
      this.#bytes.delete(s.id);
      this.#cachedBytes -= kept.length;
      return kept;
    }
    const path = isAbsolute(s.file) ? s.file : join(this.dataDir, s.file);
    let bytes: Buffer;
    try {
      bytes = await readFile(path);
    } catch (err) {
      throw new CoreError('NotFound', `The file of sample "${s.name}" is gone (${path}): ${(err as Error).message}. Restore it or delete the sample.`);
    }
    if (sha256(bytes) !== s.sha256) {
      throw new CoreError('InvalidArguments', `The file of sample "${s.name}" changed after it was added (${path}). Add it again to upload the new content.`);
    }
    return bytes;
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
    this.db.prepare('DELETE FROM samples WHERE id = ?').run(id);
    if (!isAbsolute(s.file)) {
      await rm(join(this.dataDir, s.file), { force: true });
      await this.#sidecars.remove(id);
    }
  }

  /**
   * Deletes many samples in one statement (a bulk delete of thousands), then the files this folder
   * owns and their sidecars, a few at a time. A sample being uploaded is left as it is. Returns the
   * ids deleted.
   */
  async deleteMany(ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = this.db.transaction(() =>
      this.#stmt("DELETE FROM samples WHERE id IN (SELECT value FROM json_each(?)) AND state != 'uploading' RETURNING id, file, owned").all(JSON.stringify(ids)),
    )() as Array<{ id: string; file: string; owned: number }>;
    const owned = rows.filter((r) => r.owned === 1 && !isAbsolute(r.file));
    for (let i = 0; i < owned.length; i += 16) {
      await Promise.all(owned.slice(i, i + 16).map(async (r) => {
        await rm(join(this.dataDir, r.file), { force: true });
        await this.#sidecars.remove(r.id);
      }));
    }
    return rows.map((r) => r.id);
  }

  /**
   * Puts a rewritten file (written to `reserved.tempPath` from reserveFile) in place of a sample's
   * own file, atomically, and records what changed. Used to finish a sample that waited for its
   * rate: the same sample, now encoded with it.
   */
  async replaceFile(id: string, reserved: { tempPath: string }, patch: { lengthMs: number | null; incomplete: boolean; note: string | null; extra: Record<string, unknown> }): Promise<Sample> {
    const s = this.get(id);
    if (isAbsolute(s.file)) throw new CoreError('InvalidArguments', `Sample "${s.name}" is a file outside the data folder (${s.file}); it is not rewritten in place.`);
    const hash = createHash('sha256');
    let bytes = 0;
    for await (const chunk of createReadStream(reserved.tempPath)) {
      hash.update(chunk as Buffer);
      bytes += (chunk as Buffer).length;
    }
    await rename(reserved.tempPath, join(this.dataDir, s.file));
    await fsyncDir(join(this.dataDir, SAMPLES_DIR));
    this.#stmt('UPDATE samples SET bytes = ?, sha256 = ?, length_ms = ?, incomplete = ?, note = ?, extra = ? WHERE id = ?')
      .run(bytes, hash.digest('hex'), patch.lengthMs, patch.incomplete ? 1 : 0, patch.note, JSON.stringify(patch.extra), id);
    // The sidecar carries rate_missing and the hash: a rebuilt index must see the finished take.
    this.changed([id]);
    return this.get(id);
  }

  #insert(id: string, input: NewSample, where: RowPlace, verdict: QualityVerdict | null = null): Sample {
    const row = this.#rowOf(id, input, where, verdict);
    this.#insertRow(row);
    return rowToSample(row);
  }

  #rowOf(id: string, input: NewSample, where: RowPlace, verdict: QualityVerdict | null): SampleRow {
    const held = verdict?.held === true;
    const row: SampleRow = {
      id, name: input.name, file: where.file, owned: where.owned ? 1 : 0, source_path: where.source?.path ?? null, source_sha256: where.source?.sha256 ?? null,
      kind: input.kind, label: input.label, category: input.category, metadata: JSON.stringify(input.metadata ?? {}),
      // Boxes annotate images only; the platform never stores them on other files, nor does the index.
      bounding_boxes: JSON.stringify(input.kind === 'image' ? (input.boundingBoxes ?? []) : []), structured_labels: input.structuredLabels ? JSON.stringify(input.structuredLabels) : null,
      created: new Date().toISOString(), bytes: where.bytes, sha256: where.sha256, length_ms: input.lengthMs ?? verdict?.lengthMs ?? null, incomplete: input.incomplete ? 1 : 0,
      add_date_id: input.addDateId ? 1 : 0, allow_duplicates: input.allowDuplicates ? 1 : 0, state: input.queue && !held ? 'queued' : 'local', attempts: 0,
      next_attempt_at: 0, error: null, note: input.note ?? null, platform_sample_id: null, uploaded_at: null, extra: JSON.stringify(input.extra ?? {}),
      quality: verdict ? JSON.stringify(verdict.report) : null, flagged: verdict?.flagged ? FLAGGED_LEVEL[verdict.flagged] : 0, held_back: held ? 1 : 0,
    };
    return row;
  }

  #insertRow(row: SampleRow): void {
    this.#stmt(
      `INSERT INTO samples (id, name, file, owned, source_path, source_sha256, kind, label, category, metadata, bounding_boxes, structured_labels,
         created, bytes, sha256, length_ms, incomplete, add_date_id, allow_duplicates, state, attempts, next_attempt_at, error, note,
         platform_sample_id, uploaded_at, extra, quality, flagged, held_back)
       VALUES (@id, @name, @file, @owned, @source_path, @source_sha256, @kind, @label, @category, @metadata, @bounding_boxes, @structured_labels,
         @created, @bytes, @sha256, @length_ms, @incomplete, @add_date_id, @allow_duplicates, @state, @attempts, @next_attempt_at, @error, @note,
         @platform_sample_id, @uploaded_at, @extra, @quality, @flagged, @held_back)`,
    ).run(row);
    if (row.owned === 1) this.#sidecars.mark([row.id]);
  }

  /**
   * Indexes a file already saved in the samples folder. If the index cannot take it (disk full,
   * read-only), the file stays where it is (the next start indexes it again) and the error says so.
   */
  #indexSaved<T>(rel: string, insert: () => T, files = 1): T {
    try {
      return insert();
    } catch (err) {
      const code = String((err as { code?: unknown }).code ?? '');
      const full = /FULL|ENOSPC/.test(code) || /disk is full|database or disk is full/i.test((err as Error).message);
      const readonly = /READONLY|IOERR/.test(code);
      if (!full && !readonly) throw err;
      throw new CoreError('Unavailable',
        (files === 1 ? `The sample was saved as ${join(this.dataDir, rel)}, but the index (${join(this.dataDir, 'samples.db')}) could not record it: ` : `${files} samples were saved in ${join(this.dataDir, rel)}, but the index (${join(this.dataDir, 'samples.db')}) could not record them: `) +
          `${full ? 'the disk is full' : 'the index cannot be written'} (${code || (err as Error).message}). ` +
          `${full ? 'Free some space on that disk' : 'Make the data folder writable'}, then restart Capture Desk: ${files === 1 ? 'the file is indexed again at start (check its label and category then)' : 'the files are indexed again at start, from the records saved beside them'}.`,
        { keptIn: join(this.dataDir, rel) });
    }
  }

  /** Compiled once per SQL text: bulk imports run the same few statements thousands of times. */
  #stmt(sql: string): Statement {
    let st = this.#statements.get(sql);
    if (!st) this.#statements.set(sql, (st = this.db.prepare(sql)));
    return st;
  }

  /**
   * Files in samples/ with no row: one left by a crash between writing a file and indexing it, or
   * all of them when the index was lost. Each comes back from its sidecar if it has one, else from
   * its own contents with a note saying what was lost. No sample file is deleted here; only temp
   * files of writes that never finished are. A healthy start reads no sidecar.
   */
  async #recoverOrphans(known: Set<string>, lost: IndexDamage | null): Promise<void> {
    const dir = join(this.dataDir, SAMPLES_DIR);
    const owned = new Set([...known].map((file) => basename(file)));
    const rebuilt: RebuiltRow[] = [];
    let rebuild: typeof import('./sample-rebuild.js') | undefined;
    for (const f of await readdir(dir)) {
      if (owned.has(f) || f.endsWith(SIDECAR_SUFFIX)) continue;
      if (f.startsWith('.') && f.endsWith('.tmp')) {
        await rm(join(dir, f), { force: true }); // a write that never finished: it was never promised to anyone
        continue;
      }
      // Loaded only when a file needs it: its decoders (zod, cbor-x) cost a command like `upload` ~0.1 s of start-up.
      rebuild ??= await import('./sample-rebuild.js');
      const { LOST_NOTE, rowFromContents, rowFromSidecar } = rebuild;
      const bytes = await readFile(join(dir, f));
      const found = { id: basename(f, extname(f)), file: storedName(f), bytes, sha256: sha256(bytes) };
      const side = await readSidecar(join(dir, sidecarName(found.id)));
      rebuilt.push(
        side.ok
          ? rowFromSidecar(found, side.sidecar)
          : rowFromContents(found, f, lost ? LOST_NOTE : 'recovered after an interrupted save; check label and category'),
      );
      if (!lost) this.#log.warn('re-indexed a sample file that had no index row', { file: f, from: side.ok ? 'sidecar' : 'contents' });
    }
    this.db.transaction(() => rebuilt.forEach((r) => this.#insertRow(r.row)))();
    if (lost && (rebuilt.length > 0 || lost.keptAs.length > 0)) {
      this.indexRebuild = (rebuild ?? (await import('./sample-rebuild.js'))).rebuildReport(lost, rebuilt);
      this.#log.warn('sample index rebuilt', { ...this.indexRebuild });
    }
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

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
