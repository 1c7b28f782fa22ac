import type { MethodInput, ModelTestResult, Sample } from '../contract/contract.js';
import type { ModelEntry } from '../contract/model-schema.js';
import type { ClassificationStore } from '../classify/classification-store.js';
import { CoreError } from '../errors.js';
import type { JobContext } from '../jobs.js';
import { idsMatching } from '../samples/sample-query.js';
import type { SampleStore } from '../samples/sample-store.js';
import type { ModelPool } from './model-pool.js';
import type { ModelRegistry } from './model-registry.js';
import { fitForTest, samplesIn, testableKinds, testSamples, type TestedSample } from './model-test.js';
import { modelTestResult } from './model-test-result.js';

export interface ModelTestDeps {
  store: SampleStore;
  kept: ClassificationStore;
  registry: ModelRegistry;
  /** Up to `workers` workers of an added model (ModelService.pool). */
  pool(name: string, workers: number): Promise<ModelPool>;
  workers: number;
  /** Samples whose kept results changed: "Model says" and its filters follow. */
  announce(ids: string[]): void;
  job<T>(jobId: string, work: (job: JobContext) => Promise<T>): Promise<T>;
}

type Input = Omit<MethodInput<'models.test'>, 'jobId'>;

/**
 * models.test: `capture-desk model test` as a job of the app. The models' own problems end the
 * call before any sample; then each model in turn classifies the samples the filter matches,
 * oldest first (testSamples: kept results reused, each new one kept as it is made), with one
 * progress bar over both runs.
 */
export async function runModelTest(d: ModelTestDeps, jobId: string, input: Input): Promise<ModelTestResult> {
  if (input.models.length === 2 && input.models[0] === input.models[1]) {
    throw new CoreError('InvalidArguments', `Model "${input.models[0]}" was picked twice: pick two different models to compare them.`);
  }
  const strideMs = input.strideMs ?? null;
  const threshold = input.threshold ?? 0.6;
  const entries: ModelEntry[] = [];
  for (const name of input.models) entries.push(await fitForTest(d.registry, name, strideMs));
  const kinds = testableKinds(entries);
  return d.job(jobId, async (job) => {
    const samples: Sample[] = samplesIn(d.store, idsMatching(d.store.db, input.filter, { sort: { by: 'created', dir: 'asc' } }));
    const total = samples.length * entries.length;
    job.progress(0, total);
    const runs: TestedSample[][] = [];
    try {
      for (const [k, entry] of entries.entries()) {
        const pool = await d.pool(entry.name, input.workers ?? d.workers);
        try {
          const progress = (done: number): boolean => {
            job.progress(k * samples.length + done, total);
            return !job.signal.aborted;
          };
          runs.push(await testSamples({ store: d.store, kept: d.kept, pool, strideMs, threshold, progress, signal: job.signal }, samples));
        } finally {
          await pool.close();
        }
      }
    } finally {
      // Cancelled or not, what was classified is kept: the views showing those samples look again.
      if (samples.length) d.announce(samples.map((s) => s.id));
    }
    return modelTestResult(entries, kinds, runs, { threshold, strideMs });
  });
}
