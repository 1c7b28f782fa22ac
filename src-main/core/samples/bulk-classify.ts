import type { BulkResult, Classification, Sample, SampleQueryFilter } from '../contract/contract.js';
import { CoreError } from '../errors.js';
import type { LocalRefusal, ModelEntry } from '../contract/model-schema.js';
import type { JobContext } from '../jobs.js';
import { countBy, idsMatching } from './sample-query.js';
import type { SampleStore } from './sample-store.js';

/** What classifying with a local model needs from the model side (ModelService). */
export interface BulkClassifier {
  /**
   * The added model, ready to run and fit for `strideMs`; NotFound, Unavailable or InvalidArguments,
   * with what to do, otherwise. (The fit is the model side's to judge: samples/ sits below it.)
   */
  model(name: string, strideMs: number | null): Promise<ModelEntry>;
  /** How many samples to classify at once when the action does not say (one per core, capped). */
  workers: number;
  /** Classifies one sample and keeps the result (ModelService.classifySample); calls made at once run in workers of their own. */
  classifySample(sample: Sample, model: string, o: { strideMs?: number | null; threshold?: number; signal?: AbortSignal }): Promise<Classification>;
}

export interface ClassifyAction {
  jobId: string;
  model: string;
  strideMs?: number | null | undefined;
  threshold?: number | undefined;
  workers?: number | undefined;
}

type Unchanged = BulkResult['unchanged'][number];
type Leave = (count: number, code: Unchanged['code'], reason: string) => void;

const SERIES = "kind IN ('sensor', 'audio')";

/**
 * "Classify all matching" with a model added on this computer: every sample the filter matches,
 * oldest first, spread over the model's workers (each sample whole in one), each result kept as soon as it is made (so a cancel keeps what was
 * finished, and the "Model says" column fills in as it goes). What the index already tells (files
 * that are not series of readings, samples shorter than a window) is said before the person
 * confirms; a sample found unfit while classifying (axes, rate, a file that cannot be read) is left
 * with its reason and the rest go on.
 */
export async function classifyMatching(
  d: { store: SampleStore; classifier: BulkClassifier | undefined; job<T>(jobId: string, work: (job: JobContext) => Promise<T>): Promise<T> },
  filter: SampleQueryFilter,
  action: ClassifyAction,
  o: { dryRun: boolean; leave: Leave },
): Promise<number> {
  if (!d.classifier) throw new CoreError('Unavailable', 'This shell cannot run models on this computer.');
  const entry = await d.classifier.model(action.model, action.strideMs ?? null);
  const m = entry.description;
  // The model's own problems (axes never given, a stride that does not fit it) end here, before any sample.
  if (m.axes === null) {
    throw new CoreError('InvalidArguments', `Model "${entry.name}" does not say how many axes it takes (a build from before 2022). Say it once ("capture-desk model set-axes ${entry.name} --axes N", or in Settings → Models), then classify again.`);
  }
  const db = d.store.db;
  const short = `length_ms IS NOT NULL AND length_ms < ${Number(m.windowMs)}`;
  const groups = countBy(db, filter, `CASE WHEN NOT (${SERIES}) THEN 'other' WHEN ${short} THEN 'short' ELSE 'ok' END`);
  const tooShort = shortReason(entry);
  o.leave(groups.get('other') ?? 0, 'misfit', 'not sensor or audio data (images, video, other files): a model classifies series of readings');
  o.leave(groups.get('short') ?? 0, 'too-short', tooShort);
  if (o.dryRun) return groups.get('ok') ?? 0;

  return d.job(action.jobId, async (job) => {
    const ids = idsMatching(db, filter, { sort: { by: 'created', dir: 'asc' }, extra: `${SERIES} AND NOT (${short})` });
    const left = new Map<string, { code: Unchanged['code']; count: number }>();
    const leave = (code: Unchanged['code'], reason: string) => {
      const g = left.get(reason) ?? { code, count: 0 };
      g.count++;
      left.set(reason, g);
    };
    let changed = 0;
    let done = 0;
    let next = 0;
    job.progress(0, ids.length);
    const one = async (id: string): Promise<void> => {
      let sample: Sample;
      try {
        sample = d.store.get(id);
      } catch {
        return; // deleted meanwhile: counted as "changed while this ran"
      }
      try {
        await d.classifier!.classifySample(sample, entry.name, { strideMs: action.strideMs ?? null, ...(action.threshold === undefined ? {} : { threshold: action.threshold }), signal: job.signal });
        changed++;
      } catch (err) {
        if (job.signal.aborted) return;
        const why = refusalOf(err);
        if (why?.reason === 'too-short') leave('too-short', tooShort);
        else if (why?.reason === 'misfit') leave('misfit', misfitReason(entry, why));
        else if (why?.reason === 'model-failed') leave('not-classified', `model "${entry.name}" failed on one of their windows (run_classifier returned ${why.code}${why.code === -5 ? ': its signal processing failed' : ''})`);
        else if (err instanceof CoreError && err.code === 'NotFound' && !exists(d.store, sample.id)) { /* deleted meanwhile */ }
        else leave('not-classified', `could not be classified (the first said: ${err instanceof Error ? err.message : String(err)})`);
      }
    };
    // One lane per worker: each takes the next sample, oldest first, and classifies it whole.
    const lanes = Math.max(1, Math.min(action.workers ?? d.classifier!.workers, ids.length));
    await Promise.all(Array.from({ length: lanes }, async () => {
      while (!job.signal.aborted && next < ids.length) {
        await one(ids[next++]!);
        if (job.signal.aborted) return;
        job.progress(++done, ids.length);
      }
    }));
    if (job.signal.aborted) throw stopped(entry, done, ids.length, changed);
    for (const [reason, g] of left) o.leave(g.count, g.code, reason);
    return changed;
  });
}

function exists(store: SampleStore, id: string): boolean {
  try {
    store.get(id);
    return true;
  } catch {
    return false;
  }
}

function refusalOf(err: unknown): LocalRefusal | null {
  if (!(err instanceof CoreError)) return null;
  const d = err.details as { reason?: unknown } | undefined;
  return d && (d.reason === 'too-short' || d.reason === 'misfit' || d.reason === 'model-failed') ? (err.details as LocalRefusal) : null;
}

function shortReason(entry: ModelEntry): string {
  return `shorter than one window of model "${entry.name}" (${entry.description.windowMs} ms)`;
}

const hz = (x: number) => `${Math.round(x * 100) / 100} Hz`;

function misfitReason(entry: ModelEntry, r: Extract<LocalRefusal, { reason: 'misfit' }>): string {
  const m = entry.description;
  if (r.axes !== m.axes) return `with ${r.axes} ${r.axes === 1 ? 'axis' : 'axes'}, where model "${entry.name}" takes ${m.axes}`;
  return `sampled at ${hz(r.rateHz)}, under a quarter of the ${hz(m.frequencyHz)} model "${entry.name}" needs`;
}

function stopped(entry: ModelEntry, done: number, total: number, changed: number): CoreError {
  return new CoreError('Cancelled', `Classifying with model "${entry.name}" was cancelled after ${done} of ${total} samples; the ${changed} classified keep their results.`, { done, total, changed });
}
