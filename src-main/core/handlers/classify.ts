import type { Handlers } from '../dispatch.js';
import type { EventBus } from '../event-bus.js';
import type { ClassifyService } from '../classify/classify-service.js';

type ClassifyMethods =
  | 'samples.classify' | 'samples.classification' | 'samples.cancelClassify' | 'samples.classifyOptions'
  | 'samples.setClassifyOptions' | 'samples.modelSays' | 'samples.collectSummary';

export function classifyHandlers(svc: ClassifyService, bus: EventBus): Pick<Handlers, ClassifyMethods> {
  return {
    'samples.classify': ({ id, variant, impulseId }) => svc.classify(id, { variant, impulseId }),
    'samples.classification': ({ id, variant, impulseId }) => svc.classification(id, { variant, impulseId }),
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
