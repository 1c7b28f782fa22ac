import type { Classification, ClassifiedWindow, Sample } from '../contract/contract.js';
import type { LocalRefusal, ModelEntry } from '../contract/model-schema.js';
import { CoreError } from '../errors.js';
import type { ClassificationStore } from '../classify/classification-store.js';
import type { ModelKind, Tested } from '../evaluate/model-report.js';
import type { SampleStore } from '../samples/sample-store.js';
import { classifyInWorker, stopFlag } from './classify-sample.js';
import { localVariant } from './classify-windows.js';
import { checkModelAlone } from './live-model.js';
import type { ModelPool } from './model-pool.js';
import type { ModelRegistry } from './model-registry.js';
import type { ModelSession } from './model-session.js';

/** What a model test made of one sample: counted (its windows, new or reused), or unfit and why. */
export type TestedSample =
  | { sample: Sample; windows: ClassifiedWindow[]; reused: boolean; unfit?: undefined }
  | { sample: Sample; unfit: string };

/** A regression model answers one value per window (its only "label"); the kind is in the description. */
export const isRegressionModel = (entry: ModelEntry): boolean => /regression/i.test(entry.description.modelType ?? '');

/** The model, ready and fit for the stride; its own problems (axes never given, a stride it cannot take) said once, before any sample. */
export async function fitForTest(registry: ModelRegistry, name: string, strideMs: number | null): Promise<ModelEntry> {
  const { entry } = await registry.ready(name);
  if (entry.description.axes === null) {
    throw new CoreError('InvalidArguments', `Model "${entry.name}" does not say how many axes it takes (a build from before 2022). Say it once ("capture-desk model set-axes ${entry.name} --axes N", or in Settings → Models), then test again.`);
  }
  checkModelAlone(entry, strideMs);
  return entry;
}

export const kindOf = (e: ModelEntry): ModelKind => ({ regression: isRegressionModel(e), hasAnomaly: e.description.hasAnomaly, labels: e.description.labels });

/** The models' kinds; two are compared by the samples each gets right, which a regression model (a value) cannot be. */
export function testableKinds(entries: readonly ModelEntry[]): ModelKind[] {
  const kinds = entries.map(kindOf);
  if (entries.length === 2 && kinds.some((k) => k.regression)) {
    throw new CoreError('InvalidArguments', 'Two models are compared by the samples each gets right: both must be classification models, and a regression model answers values. Test it alone.');
  }
  return kinds;
}

/** The samples of `ids`, in that order, read in one statement (a test set's thousand, one query each, was a tenth of the run's own time). */
export function samplesIn(store: SampleStore, ids: readonly string[]): Sample[] {
  const found = store.getMany(ids);
  return ids.flatMap((id) => found.get(id) ?? []);
}

/** A tested sample as the report takes it. */
export const toTested = (t: TestedSample): Tested => (t.unfit === undefined ? { id: t.sample.id, label: t.sample.label!, windows: t.windows } : { id: t.sample.id, unfit: t.unfit });

export interface ModelTestRun {
  store: SampleStore;
  kept: ClassificationStore;
  pool: ModelPool;
  strideMs: number | null;
  threshold: number;
  /** Called after each sample (done of total); return false to stop: the run then throws Cancelled. */
  progress?: (done: number, total: number) => boolean | void;
  /** Aborted: the run stops as when progress says false, and the samples in the workers at their next window. */
  signal?: AbortSignal;
}

const SERIES = new Set(['sensor', 'audio']);

/**
 * Classifies every sample with the pool's model, each whole in one worker, and keeps each result
 * with its sample as `samples classify --model` does (so "Model says" and its filters show it).
 * A sample already classified by this build, at this stride and threshold, from the same bytes
 * (its sha256) is not classified again: its kept windows are used. Samples the model cannot
 * judge are unfit, with the reason in words; the rest go on.
 */
export async function testSamples(r: ModelTestRun, samples: readonly Sample[]): Promise<TestedSample[]> {
  const entry = r.pool.entry;
  const d = entry.description;
  const strideMs = r.strideMs ?? d.windowMs / 4;
  const variant = localVariant(entry.hash);
  let done = 0;
  // Once stopped, a sample another lane finishes afterwards is neither counted nor kept: what the
  // message says is what was kept. The samples in the workers stop at their next window (`stop`).
  let cancelled: CoreError | null = null;
  const stop = stopFlag();
  const stopRun = (): CoreError => {
    cancelled ??= new CoreError('Cancelled', `The test of model "${entry.name}" was stopped after ${done} of ${samples.length} samples; the samples classified keep their results.`);
    stop.set();
    return cancelled;
  };
  const step = (): void => {
    if (cancelled) throw cancelled;
    done++;
    if (r.progress?.(done, samples.length) === false) throw stopRun();
  };
  const onAbort = (): void => void stopRun();
  if (r.signal?.aborted) onAbort();
  r.signal?.addEventListener('abort', onAbort, { once: true });
  // First what the index and the kept results tell, without a worker; then the rest, in workers.
  const out = new Array<TestedSample>(samples.length);
  const left: number[] = [];
  const keys = r.kept.localKeys(samples.map((s) => s.id), variant);
  // A turn at a time: in the app this runs in the core beside live captures, and ten thousand kept
  // results read and checked in one go held its event loop for seconds; now other work gets a turn.
  for (let from = 0; from < samples.length; from += TURN_EVERY) {
    const part = samples.slice(from, from + TURN_EVERY);
    const unfit = part.map((sample) => unfitBefore(entry, sample));
    const kept = r.kept.localWindows(part.filter((sample, k) => unfit[k] === null && reusable(sample)).map((s) => s.id), variant);
    for (const [k, sample] of part.entries()) {
      const windows = kept.get(sample.id);
      if (unfit[k] !== null) out[from + k] = { sample, unfit: unfit[k]! };
      else if (windows) out[from + k] = { sample, windows, reused: true };
      else {
        left.push(from + k);
        continue;
      }
      step();
    }
    if (from + TURN_EVERY < samples.length) await new Promise((res) => setImmediate(res));
  }
  // Kept in batches (one transaction each), the last batch also when the run stops: a cancel keeps what was finished.
  const pending: Classification[] = [];
  const flush = (): void => r.kept.keepAll(pending.splice(0));
  try {
    const tested = await r.pool.map(left, (session, i) => one(session, samples[i]!));
    for (const [k, i] of left.entries()) out[i] = tested[k]!;
  } finally {
    r.signal?.removeEventListener('abort', onAbort);
    flush();
  }
  if (cancelled) throw cancelled;
  return out;

  /** Kept from the same bytes, threshold, stride and window (only then are its windows read). */
  function reusable(sample: Sample): boolean {
    const key = keys.get(sample.id);
    return key !== undefined && key.sampleSha256 === sample.sha256 && key.threshold === r.threshold && key.strideMs === strideMs && key.windowMs === d.windowMs;
  }

  async function one(session: ModelSession, sample: Sample): Promise<TestedSample> {
    if (cancelled) throw cancelled;
    let result: Classification;
    try {
      result = await classifyInWorker(r.store, session, sample, { strideMs: r.strideMs, threshold: r.threshold, stop: stop.flag });
    } catch (err) {
      if (cancelled) throw cancelled; // stopped in the worker: the run's own sentence says how far it got
      const why = unfitOf(err, entry);
      if (why === null) throw err;
      step();
      return { sample, unfit: why };
    }
    if (cancelled) throw cancelled;
    pending.push(result);
    if (pending.length >= KEEP_BATCH) flush();
    step();
    return { sample, windows: result.blocks[0]!.windows, reused: false };
  }
}

const KEEP_BATCH = 64;
/** Samples judged from the index and the kept results between two turns of the event loop (~15 ms of work). */
const TURN_EVERY = 100;

/** What the index tells without reading the sample: its kind, its label, its length. */
function unfitBefore(entry: ModelEntry, s: Sample): string | null {
  const d = entry.description;
  if (!SERIES.has(s.kind)) return `not sensor or audio data (${s.kind}): a model classifies series of readings`;
  if (s.label === null) return 'no label: there is nothing to compare the model\'s answer with';
  if (isRegressionModel(entry)) {
    if (!Number.isFinite(Number(s.label)) || s.label.trim() === '') return `label "${s.label}" is not a number, and model "${entry.name}" is a regression model (it answers a value)`;
  } else if (!d.labels.includes(s.label)) {
    return `label "${s.label}" is not one of model "${entry.name}"'s labels (${d.labels.join(', ')})`;
  }
  if (s.lengthMs !== null && s.lengthMs + 1e-6 < d.windowMs) return tooShort(entry, s.lengthMs);
  return null;
}

const tooShort = (entry: ModelEntry, lengthMs: number): string =>
  `${Math.round(lengthMs)} ms long, shorter than one window of model "${entry.name}" (${entry.description.windowMs} ms)`;

/** A sample's own problem (too short, axes or rate the model cannot take, a file that cannot be read) as a reason; null for anything else. */
function unfitOf(err: unknown, entry: ModelEntry): string | null {
  if (!(err instanceof CoreError) || err.code === 'Cancelled' || err.code === 'Internal') return null;
  const r = err.details as Partial<LocalRefusal> | undefined;
  if (r?.reason === 'too-short') return tooShort(entry, (r as Extract<LocalRefusal, { reason: 'too-short' }>).lengthMs);
  if (r?.reason === 'misfit') return misfit(entry, r as Extract<LocalRefusal, { reason: 'misfit' }>);
  return err.message;
}

const hz = (x: number): string => `${Math.round(x * 100) / 100} Hz`;

/** A sample's axes or rate in the model's terms (the live sentence's advice, "choose a source", is not for a sample). */
function misfit(entry: ModelEntry, r: Extract<LocalRefusal, { reason: 'misfit' }>): string {
  const d = entry.description;
  if (r.axes !== d.axes) return `${r.axes} ${r.axes === 1 ? 'axis' : 'axes'}, where model "${entry.name}" takes ${d.axes}`;
  return `sampled at ${hz(r.rateHz)}, under a quarter of the ${hz(d.frequencyHz)} model "${entry.name}" needs: resampling cannot make up what was never measured`;
}
