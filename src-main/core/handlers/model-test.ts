import type { ClassificationStore } from '../classify/classification-store.js';
import type { Handlers } from '../dispatch.js';
import type { Jobs } from '../jobs.js';
import { defaultModelWorkers } from '../model/model-pool.js';
import type { ModelService } from '../model/model-service.js';
import { runModelTest } from '../model/model-test-job.js';
import type { SampleStore } from '../samples/sample-store.js';

/** Testing a model on the samples here (issue 44, in the app); see core/model/model-test-job.ts. */
export function modelTestHandlers(d: { store: SampleStore; kept: ClassificationStore; models: Pick<ModelService, 'registry' | 'pool'>; jobs: Jobs; announce: (ids: string[]) => void }): Pick<Handlers, 'models.test'> {
  return {
    'models.test': ({ jobId, ...input }) =>
      runModelTest(
        {
          store: d.store,
          kept: d.kept,
          registry: d.models.registry,
          pool: (name, workers) => d.models.pool(name, workers),
          workers: defaultModelWorkers(),
          announce: d.announce,
          job: (id, work) => d.jobs.run(id, 'test', work),
        },
        jobId,
        input,
      ),
  };
}
