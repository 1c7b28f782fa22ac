import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { basename, isAbsolute } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { CoreError } from '../errors.js';
import { canonicalFolder, pathFlavor } from '../fs/path-flavor.js';
import type { Logger } from '../log.js';
import type { SampleStore } from '../samples/sample-store.js';
import { importFile, type ImportOutcome } from '../import/import-files.js';
import { assertFolder, assertNoOverlap } from './folder-checks.js';
import { IdBatcher } from './id-batcher.js';
import { WatchedFolderInput, type ImportPendingResult, type LabelRule, type PendingFile, type WatchedFolder, type WatchedFolderState } from '../contract/watch-schema.js';
import { isIgnoredUnder, isSampleFileName, scanFolder } from './watch-filter.js';
import { loadWatchedFolders, saveWatchedFolders } from './watched-folders-file.js';

export interface FolderWatcherOptions {
  dataDir: string;
  store: SampleStore;
  log: Logger;
  /** New samples, already queued: hand them to the upload queue. Ids arriving within ~100 ms come in one call. */
  onSamplesAdded: (ids: string[]) => void;
  /** A file (or a whole folder) could not be watched or added; `path` says which, `message` what to do. */
  onError?: (folderId: string, path: string, message: string) => void;
  /** How long a new file's size must stay the same before it counts as fully written. */
  stabilityMs?: number;
  /** The project HMAC key, so unsigned JSON/CBOR is signed as in a bulk import; asked per file so a new key applies at once. */
  hmacKey?: () => Promise<string | undefined>;
}

type Outcome = ImportOutcome | { path: string; status: 'failed'; reason: string };

interface Running {
  watcher: FSWatcher;
  /** Files that were there when watching began: offered to the user, never sent unasked. */
  offered: Set<string>;
  /** While the start scan runs: files the live watcher took, so the scan does not offer them too. */
  arrivedLive: Set<string> | null;
}

const BATCH_WINDOW_MS = 100;

/**
 * Turns files saved into watched folders into queued samples. A file counts once its size has
 * held still for `stabilityMs` (chokidar's awaitWriteFinish), so a half-written file is never
 * sent. Files already there when watching begins (at start, on add, on enable) are only offered:
 * the user may have uploaded them by other means, and a surprise upload of a whole folder is worse
 * than one click.
 */
export class FolderWatcher {
  readonly #o: FolderWatcherOptions;
  readonly #stabilityMs: number;
  #folders: WatchedFolder[];
  readonly #running = new Map<string, Running>();
  /** Why an enabled folder is not being watched (missing at start, watcher error). */
  readonly #problems = new Map<string, string>();
  /** One import per path at a time, whether it came from the watcher or from an accepted offer. */
  readonly #inFlight = new Map<string, Promise<Outcome>>();
  readonly #batcher: IdBatcher;
  #serial: Promise<unknown> = Promise.resolve();
  #closed = false;

  private constructor(o: FolderWatcherOptions, folders: WatchedFolder[]) {
    this.#o = o;
    this.#stabilityMs = o.stabilityMs ?? 1000;
    this.#folders = folders;
    this.#batcher = new IdBatcher(BATCH_WINDOW_MS, (ids) => this.#notify(ids));
  }

  static async open(o: FolderWatcherOptions): Promise<FolderWatcher> {
    const fw = new FolderWatcher(o, await loadWatchedFolders(o.dataDir, o.log));
    for (const f of fw.#folders) {
      if (!f.enabled) continue;
      // A folder on an unplugged drive must not stop the app; it is reported and can be retried by enabling it.
      await fw.#start(f).catch((err: unknown) => {
        const message = `Not watching ${f.path}: ${(err as Error).message}`;
        fw.#problems.set(f.id, message);
        fw.#report(f.id, f.path, message);
      });
    }
    return fw;
  }

  list(): WatchedFolderState[] {
    return this.#folders.map((f) => ({ ...structuredClone(f), watching: this.#running.has(f.id), problem: this.#problems.get(f.id) ?? null }));
  }

  /** Starts watching at once; files already in the folder are offered (see pending), not imported. */
  async add(input: WatchedFolderInput): Promise<WatchedFolder> {
    const parsed = WatchedFolderInput.safeParse(input);
    if (!parsed.success) {
      const i = parsed.error.issues[0];
      throw new CoreError('InvalidArguments', `Watched folder ${i?.path.join('.') ?? ''} ${i?.message ?? 'is invalid'}.`);
    }
    const raw = parsed.data.path;
    if (!isAbsolute(raw)) throw new CoreError('InvalidArguments', `${raw} is not an absolute path on this computer; choose the folder again.`);
    // One folder, one spelling in the file: no trailing separator or "..", and C: not c: on Windows.
    const folder: WatchedFolder = { id: randomUUID(), ...parsed.data, path: canonicalFolder(raw, pathFlavor()) };
    return this.#exclusive(async () => {
      await assertFolder(folder.path);
      await assertNoOverlap(folder.path, this.#o.dataDir, this.#folders);
      this.#folders = [...this.#folders, folder];
      try {
        if (folder.enabled) await this.#start(folder);
        await saveWatchedFolders(this.#o.dataDir, this.#folders);
      } catch (err) {
        await this.#stop(folder.id);
        this.#folders = this.#folders.filter((f) => f.id !== folder.id);
        throw err;
      }
      this.#o.log.info('watching a new folder', { id: folder.id, path: folder.path });
      return structuredClone(folder);
    });
  }

  async remove(id: string): Promise<void> {
    await this.#exclusive(async () => {
      const folder = this.#get(id);
      const next = this.#folders.filter((f) => f.id !== id);
      await saveWatchedFolders(this.#o.dataDir, next);
      this.#folders = next;
      this.#problems.delete(id);
      await this.#stop(id);
      this.#o.log.info('stopped watching a folder', { id, path: folder.path });
    });
  }

  /** Enabling starts again with a fresh scan: files that arrived while it was off are offered. Also the way to retry a folder with a problem. */
  async setEnabled(id: string, on: boolean): Promise<WatchedFolder> {
    return this.#exclusive(async () => {
      const folder = { ...this.#get(id), enabled: on };
      if (on && !this.#running.has(id)) await this.#start(folder);
      if (!on) await this.#stop(id);
      this.#problems.delete(id);
      const next = this.#folders.map((f) => (f.id === id ? folder : f));
      try {
        await saveWatchedFolders(this.#o.dataDir, next);
      } catch (err) {
        if (on) await this.#stop(id); // keep what runs in step with what was saved
        throw err;
      }
      this.#folders = next;
      return structuredClone(folder);
    });
  }

  /**
   * Files that were in the folder when watching began and are not samples yet. A file changed in
   * the last `stabilityMs` is left out until it holds still, as the live watcher would.
   */
  async pending(id: string): Promise<PendingFile[]> {
    this.#get(id);
    const run = this.#running.get(id);
    if (!run) return [];
    // By path alone: hashing every offered file on each look would be slow on big folders.
    const known = this.#o.store.db.prepare('SELECT 1 FROM samples WHERE source_path = ? LIMIT 1');
    const out: PendingFile[] = [];
    for (const path of [...run.offered].sort()) {
      if (known.get(path)) {
        run.offered.delete(path);
        continue;
      }
      if (this.#inFlight.has(path)) continue;
      try {
        const st = await stat(path);
        if (!st.isFile()) run.offered.delete(path);
        else if (Date.now() - st.mtimeMs >= this.#stabilityMs) out.push({ path, bytes: st.size });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') run.offered.delete(path); // gone: nothing to offer
      }
    }
    return out;
  }

  /** The user accepted the offer: imports the given pending files (all of them when `paths` is left out) and queues them. */
  async importPending(id: string, paths?: string[]): Promise<ImportPendingResult> {
    const folder = this.#get(id);
    const run = this.#running.get(id);
    if (!run) {
      const why = this.#problems.get(id);
      throw new CoreError('Unavailable', `${folder.path} is not being watched${why ? ` (${why})` : ''}; enable it, then accept its files.`);
    }
    const offered = new Set((await this.pending(id)).map((f) => f.path));
    const result: ImportPendingResult = { added: [], known: 0, failed: [] };
    for (const path of paths ?? [...offered]) {
      // Only offered files: this call must not become a way to import any path on the machine.
      if (!offered.has(path)) {
        result.failed.push({ path, reason: 'it is not among the files this folder offers (added already, still being written, or not in the folder); refresh the list' });
        continue;
      }
      const o = await this.#importOnce(folder, path);
      if (o.status === 'added') result.added.push(o.sample.id);
      else if (o.status === 'known') result.known++;
      else result.failed.push({ path, reason: o.reason });
      if (o.status === 'added' || o.status === 'known') run.offered.delete(path);
    }
    if (result.added.length > 0) this.#notify(result.added);
    return result;
  }

  /** Stops every watcher and waits for imports under way, so the store can be closed right after. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#serial.catch(() => undefined);
    await Promise.all([...this.#running.keys()].map((id) => this.#stop(id)));
    await Promise.allSettled([...this.#inFlight.values()]);
    this.#batcher.flush();
  }

  async #start(f: WatchedFolder): Promise<void> {
    await assertFolder(f.path);
    const root = f.path;
    const watcher = watch(root, {
      ignoreInitial: true, // files already there are offered from our own scan, never imported unasked
      followSymlinks: false, // a linked folder can loop or lead outside what the user chose
      ignored: (p, st) => isIgnoredUnder(root, p, st),
      awaitWriteFinish: { stabilityThreshold: this.#stabilityMs, pollInterval: 100 },
    });
    const run: Running = { watcher, offered: new Set(), arrivedLive: new Set() };
    this.#running.set(f.id, run);
    watcher.on('add', (path) => this.#onAdd(f.id, run, path));
    watcher.on('unlinkDir', (path) => {
      if (path === root) this.#report(f.id, root, `${root} was removed or renamed; new files there are not seen until it is back and the folder is enabled again.`);
    });
    watcher.on('error', (err) => this.#report(f.id, root, `Watching ${root} failed: ${(err as Error).message ?? String(err)}. Disable and enable the folder to retry.`));
    try {
      await new Promise<void>((res) => watcher.once('ready', () => res()));
      const present = await scanFolder(root);
      for (const p of present) if (!run.arrivedLive?.has(p)) run.offered.add(p);
      run.arrivedLive = null;
      this.#o.log.info('watching folder', { id: f.id, path: root, offered: run.offered.size });
    } catch (err) {
      await this.#stop(f.id);
      throw err;
    }
  }

  async #stop(id: string): Promise<void> {
    const run = this.#running.get(id);
    if (!run) return;
    this.#running.delete(id);
    await run.watcher.close();
  }

  #onAdd(folderId: string, run: Running, path: string): void {
    // A late event from a watcher being closed, or a folder removed meanwhile, must not import.
    if (this.#closed || this.#running.get(folderId) !== run) return;
    const folder = this.#folders.find((f) => f.id === folderId);
    if (!folder) return;
    // chokidar tests some paths without stats, so the file-name rule is applied again here.
    if (isIgnoredUnder(folder.path, path) || !isSampleFileName(basename(path))) return;
    run.arrivedLive?.add(path);
    run.offered.delete(path);
    void this.#importOnce(folder, path).then((o) => {
      if (o.status === 'added') {
        this.#o.log.info('imported a new file from a watched folder', { folder: folder.id, path, sample: o.sample.id });
        this.#batcher.push(o.sample.id);
      } else if (o.status === 'refused') {
        this.#report(folder.id, path, `${path} was not added: ${o.reason}.`);
      } else if (o.status === 'failed') {
        this.#report(folder.id, path, `${path} could not be added: ${o.reason}.`);
        // If it is still there (locked for a moment, say), the user can accept it later.
        if (this.#running.get(folderId) === run) run.offered.add(path);
      }
    });
  }

  #importOnce(folder: WatchedFolder, path: string): Promise<Outcome> {
    const busy = this.#inFlight.get(path);
    if (busy) return busy;
    const p = this.#import(folder, path).finally(() => this.#inFlight.delete(path));
    this.#inFlight.set(path, p);
    return p;
  }

  async #import(folder: WatchedFolder, path: string): Promise<Outcome> {
    try {
      if (!(await stat(path)).isFile()) return { path, status: 'failed', reason: 'it is not a regular file' };
      return await importFile(this.#o.store, path, {
        category: folder.category,
        label: labelFor(folder.label),
        metadata: folder.metadata,
        boundingBoxes: [],
        addDateId: false,
        allowDuplicates: false,
        hmacKey: await this.#o.hmacKey?.(),
        queue: true,
      });
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      const reason = e.code === 'ENOENT' ? 'it was deleted or moved before it could be read' : e.code === 'EACCES' || e.code === 'EPERM' ? 'Capture Desk may not read it; check its permissions' : e.message;
      this.#o.log.warn('could not import a file from a watched folder', { folder: folder.id, path, error: e.message });
      return { path, status: 'failed', reason };
    }
  }

  #notify(ids: string[]): void {
    try {
      this.#o.onSamplesAdded(ids);
    } catch (err) {
      // A listener's bug must not stop the watcher; the samples are queued in the store regardless.
      this.#o.log.error('onSamplesAdded threw', { error: (err as Error).message, ids: ids.length });
    }
  }

  #report(folderId: string, path: string, message: string): void {
    this.#o.log.warn('watched folder problem', { folder: folderId, path, message });
    try {
      this.#o.onError?.(folderId, path, message);
    } catch (err) {
      this.#o.log.error('onError threw', { error: (err as Error).message });
    }
  }

  #get(id: string): WatchedFolder {
    const f = this.#folders.find((x) => x.id === id);
    if (!f) throw new CoreError('NotFound', `No watched folder with id ${id}; it may have been removed. Refresh the list.`);
    return f;
  }

  /** Changes to the folder list run one at a time, so two adds cannot both pass the overlap check. */
  #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new CoreError('Unavailable', 'The folder watcher is shut down; restart Capture Desk.'));
    const run = this.#serial.then(fn, fn);
    this.#serial = run.catch(() => undefined);
    return run;
  }
}

/** The import's label option: undefined asks for the platform's file-name rule. */
function labelFor(rule: LabelRule): string | null | undefined {
  if (rule.mode === 'fixed') return rule.label;
  return rule.mode === 'unlabeled' ? null : undefined;
}
