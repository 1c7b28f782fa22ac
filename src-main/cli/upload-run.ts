import { sep } from 'node:path';
import { CoreError } from '../core/errors.js';
import { errorCode, storageProblemAt } from '../core/fs/storage-error.js';
import type { Logger } from '../core/log.js';
import { SampleStore } from '../core/samples/sample-store.js';
import { BulkReads, importFiles } from '../core/import/bulk-import.js';
import type { BulkOutcome } from '../core/import/bulk-import.js';
import { describeLabels, readFolderLabels, type FileAnnotation } from '../core/import/folder-labels.js';
import { collectFiles, type ImportOptions } from '../core/import/import-files.js';
import { fileKind } from '../core/samples/formats/label-from-filename.js';
import { OthersInFlight } from '../core/upload/others-in-flight.js';
import { UploadQueue } from '../core/upload/upload-queue.js';
import { UPLOAD_KEY_REFUSED_HINT } from './key-advice.js';
import { Progress } from './progress.js';
import { summarize } from './upload-summary.js';
import { UploadTally } from './upload-tally.js';
import { describeRetaken } from './upload-words.js';

const PROGRESS_EVERY_MS = 200;

export interface UploadRun {
  paths: string[];
  dataDir: string;
  log: Logger;
  ingestionUrl: string;
  apiKey: string;
  concurrency: number;
  filesPerRequest: number;
  import: ImportOptions;
}

/**
 * `capture-desk upload` once its flags are read: index the files in the data directory, send
 * them through the durable queue while the rest is still being indexed, and print the summary.
 * Returns the exit code (0 only when every file is on the platform).
 */
export async function runUpload(r: UploadRun): Promise<number> {
  // The file reader's thread starts while the folders are listed, and reads while the index opens.
  const reads = new BulkReads(r.import);
  try {
    return await upload(r, reads);
  } finally {
    await reads.close(); // closed already unless something failed before the import
  }
}

async function upload(r: UploadRun, reads: BulkReads): Promise<number> {
  const { files: found, skipped, labelsFiles, hidden } = await collectFiles(r.paths);
  for (const s of skipped) process.stderr.write(`skipped ${s.path}: ${s.reason}\n`);
  const labels = labelsFiles.length ? await readFolderLabels(found, labelsFiles) : null;
  // Files whose labels file cannot be read are not sent: the platform would store them unlabelled.
  const refused: BulkOutcome[] = [...(labels?.refused ?? [])].map(([path, reason]) => ({ path, status: 'refused', reason }));
  const files = refused.length ? found.filter((f) => !labels!.refused.has(f)) : found;
  const notes = [...describeHidden(hidden), ...describeLabels(labels?.reports ?? []), ...describeBoxesFlag(found, r.import, labels?.byFile)];
  if (files.length === 0) {
    process.stderr.write('Nothing to upload.\n');
    const summary = summarize(refused, new Map(), null);
    for (const line of [...notes, ...summary.details]) process.stderr.write(line + '\n');
    process.stdout.write(summary.line + '\n');
    return skipped.length > 0 || refused.length > 0 ? 1 : 0;
  }

  reads.start(files);
  const store = await SampleStore.open(r.dataDir, r.log);
  // This command only indexes references to files that stay where they are, and every state it
  // records can be re-derived by running it again (the platform refuses duplicates). So its
  // connection may skip the fsync per commit: WAL still survives kill -9; only a power cut could
  // drop the last commits, which a re-run restores. Captures elsewhere keep synchronous=FULL.
  store.db.pragma('synchronous = NORMAL');
  // Checkpoints copy the WAL back into the database file; left to SQLite they land inside
  // whichever commit crosses 1000 pages, in the middle of the run. The WAL is the durable record
  // either way, so this run checkpoints once, at the end (closing the last connection does it).
  store.db.pragma('wal_autocheckpoint = 0');
  // The index of a big upload (ten thousand rows and four indexes, written three times each) outgrows
  // SQLite's default 2 MB page cache; evicted pages are read back for the next batch's writes.
  store.db.pragma('cache_size = -32768');
  try {
    /** What the platform stored for this run: "N uploaded" counts these only, not what another run or the app sent meanwhile. */
    const stored = new Set<string>();
    const progress = new Progress(files.length);
    const tally = new UploadTally(store, stored);
    // Redrawn a few times a second at most: each draw looks up the samples changed since the last.
    let drawn = 0;
    const showProgress = (force = false) => {
      const now = performance.now();
      if (!force && now - drawn < PROGRESS_EVERY_MS) return;
      drawn = now;
      // In the summary's words: a file the platform had already is done, but not "uploaded".
      const { uploaded, present, notUploaded } = tally.counts();
      progress.update(uploaded + present + notUploaded, `done: ${uploaded} uploaded${present ? `, ${present} already present` : ''}${notUploaded ? `, ${notUploaded} rejected or failed` : ''}`);
    };
    const queue = new UploadQueue({
      store: store, log: r.log, concurrency: r.concurrency, maxFilesPerRequest: r.filesPerRequest, maxAttempts: 6, backoff: { baseMs: 500, maxMs: 15_000 },
      target: async () => ({ ingestionUrl: r.ingestionUrl, apiKey: r.apiKey }),
      storageResumeHint: 'then run the same command again.',
      keyRefusedHint: UPLOAD_KEY_REFUSED_HINT,
      othersInFlight: new OthersInFlight(Date.now),
      onStored: (ids) => ids.forEach((id) => stored.add(id)),
      onChange: (_status, ids) => {
        tally.changed(ids);
        showProgress();
      },
    });
    // An earlier run's queued words for these files must not go before this run's replace them
    // (the import does, chunk by chunk): out of the queue until then. Samples of a file whose
    // content changed since are not found by the import and go back as they were, at the end.
    let held: Set<string>;
    try {
      held = new Set(queue.queueStore.holdFiles(files));
      // Files refused for an unreadable labels file: their words are unknown, so nothing of theirs goes.
      if (refused.length > 0) queue.queueStore.holdFiles(refused.map((o) => o.path));
    } catch (err) {
      throw await indexingError(r.dataDir, err);
    }
    const release = () => {
      if (held.size > 0) queue.queueStore.enqueue([...held]);
      held.clear();
    };
    // Sending starts with the first indexed chunk; the rest is read and hashed while requests are in flight.
    queue.start();
    const outcomes = await importFiles(store, files, r.import, (chunk) => {
      // A file known from an earlier run that did not make it gets another chance (the key,
      // the project settings or the network may have been fixed since), with this run's words.
      tally.add(chunk);
      for (const o of chunk) if (o.status !== 'refused') held.delete(o.id);
      const retry = chunk.flatMap((o) => (o.status === 'known' && ['local', 'failed', 'rejected'].includes(o.state) && !o.onPlatform ? [o.id] : []));
      if (retry.length) queue.queueStore.enqueue(retry);
      queue.wake();
    }, labels?.byFile, reads).catch(async (err: unknown) => {
      // Requests in flight finish and record what the platform answered before the index closes.
      await queue.stop();
      try {
        release();
      } catch {
        // The index refuses writes: those samples stay local; the same command run again finds and sends them.
      }
      progress.finish();
      throw await indexingError(r.dataDir, err);
    });
    release();
    queue.wake();
    await queue.whenIdle();
    await queue.stop();
    showProgress(true);
    progress.finish();
    const paused = queue.pausedReason();
    if (paused !== null) process.stderr.write(`Uploads stopped: ${paused}\n`);
    const runIds = outcomes.flatMap((o) => (o.status === 'refused' ? [] : [o.id]));
    // summarize counts a file this run stored without its verdict: only the others are read.
    const summary = summarize([...refused, ...outcomes], store.verdicts(runIds.filter((id) => !stored.has(id))), paused, stored);
    for (const line of [...notes, ...describeRetaken(outcomes, stored), ...summary.details]) process.stderr.write(line + '\n');
    process.stdout.write(summary.line + '\n');
    // Exit 0 says the files are on the platform as this run asked; one kept under other words is not.
    return summary.allOnPlatform && summary.otherWords === 0 ? 0 : 1;
  } finally {
    // Everything is committed; folding the journal into samples.db is left to the next open, so a
    // script's upload ends as soon as its work is done.
    await store.close({ foldJournal: false });
  }
}

/**
 * The data folder refused the index's writes part way: said in words, naming the folder, with
 * what to do. Whatever the platform confirmed is recorded (or, if even that was refused, found
 * again by the next run, which the platform's duplicate check answers without storing a copy).
 */
async function indexingError(dataDir: string, err: unknown): Promise<unknown> {
  const problem = await storageProblemAt(dataDir, err);
  if (problem === null) return err;
  const why = problem === 'full' ? 'the disk is full' : 'it cannot be written';
  const todo = problem === 'full' ? 'Free some space on that disk' : 'Make it writable';
  return new CoreError('Unavailable',
    `Could not index the files in the data folder ${dataDir}: ${why} (${errorCode(err)}). No file was changed, and only files the platform confirmed count as uploaded. ` +
      `${todo}, then run the same command again: it goes on where it stopped, and files already on the platform are not stored twice (unless --allow-duplicates is given).`,
    { path: dataDir });
}

/** Hidden files are left out on purpose (.DS_Store, editor swap files, .git): said once, with a few names. */
function describeHidden(hidden: string[]): string[] {
  if (hidden.length === 0) return [];
  const names = hidden.slice(0, 3).join(', ') + (hidden.length > 3 ? ` and ${hidden.length - 3} more` : '');
  return [`skipped ${hidden.length} hidden ${hidden.length === 1 ? 'entry' : 'entries'} (names starting with "."): ${names}`];
}

/** --bounding-boxes goes with images only; a run that mixes in other files says which went without. */
function describeBoxesFlag(files: string[], o: ImportOptions, byFile: ReadonlyMap<string, FileAnnotation> | undefined): string[] {
  if (o.boundingBoxes.length === 0) return [];
  const others = files.filter((f) => fileKind(f) !== 'image' && byFile?.get(f)?.boundingBoxes === undefined);
  if (others.length === 0) return [];
  const names = others.slice(0, 3).map((f) => f.slice(f.lastIndexOf(sep) + 1)).join(', ') + (others.length > 3 ? ` and ${others.length - 3} more` : '');
  return [`--bounding-boxes applies to images only: ${others.length} other file${others.length === 1 ? ' was' : 's were'} sent without boxes (${names})`];
}
