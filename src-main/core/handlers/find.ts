import { checkModelAlone } from '../model/live-model.js';
import { defaultModelWorkers } from '../model/model-pool.js';
import type { Handlers } from '../dispatch.js';
import type { ModelService } from '../model/model-service.js';
import type { Jobs } from '../jobs.js';
import { runBulk } from '../samples/bulk-actions.js';
import { facets, idsMatching, querySamples } from '../samples/sample-query.js';
import type { SampleStore } from '../samples/sample-store.js';
import type { UploadService } from '../upload/upload-service.js';

type FindMethods = 'samples.query' | 'samples.idsMatching' | 'samples.facets' | 'samples.bulk';

/** Finding samples and acting on all that match (issue 22); see core/samples/sample-query.ts and bulk-actions.ts. */
export function findHandlers(store: SampleStore, uploads: UploadService, jobs: Jobs, models?: Pick<ModelService, 'registry' | 'classifySample'>): Pick<Handlers, FindMethods> {
  return {
    'samples.query': ({ filter, sort, limit, offset }) => querySamples(store.db, { filter, sort, limit, offset }),
    'samples.idsMatching': ({ filter, sort, limit }) => {
      const max = limit ?? 100_000;
      return store.db.transaction(() => {
        const ids = idsMatching(store.db, filter, { sort, limit: max + 1 });
        // The total without a second query, unless there are more than asked for.
        const total = ids.length <= max ? ids.length : querySamples(store.db, { filter, limit: 1 }).total;
        return { ids: ids.slice(0, max), total };
      })();
    },
    'samples.facets': () => facets(store.db),
    'samples.bulk': ({ filter, action, dryRun, expectTotal }) =>
      runBulk(
        {
          store,
          enqueue: (ids, force) => uploads.queue.enqueueChecked(ids, force),
          dequeue: (ids) => uploads.queue.queueStore.dequeue(ids),
          announce: (ids) => uploads.announce(ids),
          job: (jobId, op, work) => jobs.run(jobId, op, work),
          classifier: models && {
            model: async (name, strideMs) => {
              const { entry } = await models.registry.ready(name);
              checkModelAlone(entry, strideMs);
              return entry;
            },
            workers: defaultModelWorkers(),
            classifySample: (sample, model, o) => models.classifySample(sample, model, o),
          },
        },
        filter,
        action,
        { dryRun, expectTotal },
      ),
  };
}
