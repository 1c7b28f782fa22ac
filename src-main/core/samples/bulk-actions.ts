import type { z } from 'zod';
import type { BulkResult, Methods, SampleQueryFilter } from '../contract/contract.js';
import { CoreError } from '../errors.js';
import type { JobContext, JobOp } from '../jobs.js';
import { classifyMatching, type BulkClassifier } from './bulk-classify.js';
import { exportSamples } from './exchange.js';
import { exportFolder } from './export-folder.js';
import { countBy, idsMatching, whereOf } from './sample-query.js';
import type { SampleStore } from './sample-store.js';

/** What samples.bulk's input holds once checked (as its handler gets it). */
export type BulkAction = z.output<Methods['samples.bulk']['input']>['action'];

export interface BulkDeps {
  store: SampleStore;
  /** The upload queue's enqueue with the quality hold (queue.enqueue). */
  enqueue(ids: string[], force: boolean): { queued: number; held: number };
  dequeue(ids: string[]): number;
  /** Tells every view which samples changed. */
  announce(ids: string[]): void;
  /** Runs an export or a classify as a job the person can watch and cancel (samples.progress, samples.cancel). */
  job<T>(jobId: string, op: JobOp, work: (job: JobContext) => Promise<T>): Promise<T>;
  /** Models added on this computer, for the classify action (absent: the action is refused). */
  classifier?: BulkClassifier | undefined;
}

const EDITABLE = "state NOT IN ('uploading', 'uploaded')";
const QUEUEABLE = "state IN ('local', 'failed', 'rejected')";
const RATE_MISSING = "coalesce(json_extract(extra, '$.rate_missing'), 0) = 1";

const n = (count: number) => count.toLocaleString('en-US');

/**
 * A bulk action on every sample a filter matches (issue 22: "all N matching", not a page): what it
 * would change and why the rest stays (`dryRun`), or the change itself. Counting and changing are
 * each one statement over the index; the ids never cross to the UI. Samples on the platform keep
 * their label and category here (the platform has them: change them there); a sample being sent
 * right now is left alone by every action.
 */
export async function runBulk(d: BulkDeps, filter: SampleQueryFilter, action: BulkAction, opts: { dryRun?: boolean | undefined; expectTotal?: number | undefined }): Promise<BulkResult> {
  const db = d.store.db;
  const byState = countBy(db, filter, 'state');
  const count = (...states: string[]) => states.reduce((s, st) => s + (byState.get(st) ?? 0), 0);
  const matched = [...byState.values()].reduce((a, b) => a + b, 0);
  if (opts.expectTotal !== undefined && opts.expectTotal !== matched) {
    throw new CoreError('InvalidArguments', `The filter now matches ${n(matched)} samples, not the ${n(opts.expectTotal)} you confirmed (samples were added, changed or deleted meanwhile). Nothing was changed: look at the list again and confirm.`);
  }
  const unchanged: BulkResult['unchanged'] = [];
  const leave = (c: number, code: BulkResult['unchanged'][number]['code'], reason: string) => {
    if (c > 0) unchanged.push({ count: c, reason, code });
  };
  const sending = 'being uploaded right now: try again once it is done';
  const result = (changed: number, exported: BulkResult['export'] = null): BulkResult => ({ matched, changed, unchanged, export: exported });

  switch (action.type) {
    case 'label':
    case 'category': {
      leave(count('uploaded'), 'on-platform', action.type === 'label'
        ? 'already on the platform: change their label there'
        : 'already on the platform: move them there (or one at a time from their sample view)');
      leave(count('uploading'), 'uploading', sending);
      if (opts.dryRun) return result(matched - count('uploaded', 'uploading'));
      const w = whereOf(db, filter);
      const column = action.type === 'label' ? 'label' : 'category';
      const value = action.type === 'label' ? action.label : action.category;
      const ids = db.transaction(() =>
        db.prepare(`UPDATE samples SET ${column} = ? ${w.sql ? `${w.sql} AND` : 'WHERE'} ${EDITABLE} RETURNING id`).pluck().all(value, ...w.args) as string[],
      )();
      d.store.changed(ids);
      d.announce(ids);
      return result(ids.length);
    }
    case 'queue': {
      const policy = d.store.holdPolicy();
      const min = action.force || policy === 'off' ? 3 : policy === 'all' ? 1 : 2;
      const kinds = countBy(db, filter, `CASE WHEN NOT (${QUEUEABLE}) THEN 'no' WHEN ${RATE_MISSING} THEN 'rate' WHEN flagged >= ${min} THEN 'held' ELSE 'ok' END`);
      leave(count('queued', 'uploading'), 'in-queue', 'already in the upload queue');
      leave(count('uploaded'), 'on-platform', 'already on the platform');
      leave(kinds.get('rate') ?? 0, 'rate-missing', 'kept without their sampling rate: give it first (sample view, or capture-desk samples set-rate)');
      if (opts.dryRun) {
        leave(kinds.get('held') ?? 0, 'held-back', 'held back by the data-quality setting ("Upload anyway" sends them)');
        return result(kinds.get('ok') ?? 0);
      }
      const ids = idsMatching(db, filter, { extra: `${QUEUEABLE} AND NOT ${RATE_MISSING}` });
      const { queued, held } = ids.length ? d.enqueue(ids, action.force ?? false) : { queued: 0, held: 0 };
      leave(held, 'held-back', 'held back by the data-quality setting ("Upload anyway" sends them)');
      return result(queued);
    }
    case 'dequeue': {
      leave(matched - count('queued'), 'not-queued', 'not waiting in the upload queue');
      if (opts.dryRun) return result(count('queued'));
      const ids = idsMatching(db, filter, { extra: "state = 'queued'" });
      const changed = ids.length ? d.dequeue(ids) : 0;
      d.announce(ids);
      return result(changed);
    }
    case 'delete': {
      leave(count('uploading'), 'uploading', sending);
      if (opts.dryRun) return result(matched - count('uploading'));
      const deleted = await d.store.deleteMany(idsMatching(db, filter, { extra: "state != 'uploading'" }));
      d.announce(deleted);
      return result(deleted.length);
    }
    case 'export': {
      // Checked before the dry run: the question is never asked about a folder the export refuses.
      const dir = exportFolder(d.store.dataDir, action.outDir);
      if (opts.dryRun) return result(matched);
      const { files } = await d.job(action.jobId, 'export', async (job) => {
        const ids = idsMatching(db, filter, { sort: { by: 'created', dir: 'asc' } });
        const found = d.store.getMany(ids);
        const samples = ids.flatMap((id) => found.get(id) ?? []);
        job.progress(0, samples.length);
        return exportSamples(d.store, samples, dir, { csv: action.csv ?? false, signal: job.signal, onProgress: job.progress });
      });
      return result(files, { files, dir });
    }
    case 'classify': {
      const changed = await classifyMatching(
        { store: d.store, classifier: d.classifier, job: (jobId, work) => d.job(jobId, 'classify', work) },
        filter,
        action,
        { dryRun: opts.dryRun ?? false, leave },
      );
      return result(changed);
    }
  }
}
