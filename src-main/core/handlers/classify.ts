import type { Handlers } from '../dispatch.js';
import type { EventBus } from '../event-bus.js';
import type { ClassifyService } from '../classify/classify-service.js';
import type { Classification, Sample } from '../contract/contract.js';

type ClassifyMethods =
  | 'samples.classify' | 'samples.classification' | 'samples.cancelClassify' | 'samples.classifyOptions'
  | 'samples.setClassifyOptions' | 'samples.modelSays' | 'samples.collectSummary' | 'samples.classifyLocal';

/** Classifying on this computer with an added model (ModelService.classifySample): the result is kept beside the platform's. */
export interface LocalClassifier {
  classifySample(sample: Sample, model: string, o: { strideMs?: number | null; threshold?: number }): Promise<Classification>;
}

export function classifyHandlers(svc: ClassifyService, bus: EventBus, local: LocalClassifier): Pick<Handlers, ClassifyMethods> {
  return {
    'samples.classify': ({ id, variant, impulseId }) => svc.classify(id, { variant, impulseId }),
    'samples.classification': ({ id, variant, impulseId, model }) => {
      if (model === undefined) return svc.classification(id, { variant, impulseId });
      svc.sample(id); // NotFound for a sample that is not (or no longer) here
      return svc.kept.getLocal(id, model);
    },
    'samples.classifyLocal': ({ id, model, strideMs, threshold }) =>
      local.classifySample(svc.sample(id), model, { strideMs: strideMs ?? null, ...(threshold === undefined ? {} : { threshold }) }),
    'samples.cancelClassify': ({ id }) => ({ cancelled: svc.cancel(id) }),
    'samples.classifyOptions': () => svc.options(),
    'samples.setClassifyOptions': async (patch) => {
      const next = await svc.setOptions(patch);
      bus.emit('settings.changed', next);
      return svc.options();
    },
    'samples.modelSays': ({ ids }) => ({ results: svc.modelSays(ids) }),
    'samples.collectSummary': ({ since, sessionId }) => svc.collectSummary({ since, sessionId }),
  };
}
