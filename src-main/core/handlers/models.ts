import type { Handlers } from '../dispatch.js';
import type { ModelService } from '../model/model-service.js';

type ModelMethods = 'models.list' | 'models.unreadable' | 'models.add' | 'models.addBytes' | 'models.remove' | 'models.setAxes' | 'model.live.start' | 'model.live.stop' | 'model.live.status';

export function modelHandlers(svc: ModelService): Pick<Handlers, ModelMethods> {
  return {
    'models.list': () => svc.list(),
    'models.unreadable': async () => (await svc.registry.listAll()).unreadable,
    'models.add': ({ path, name, axes }) => svc.add(path, { name, axes }),
    'models.addBytes': ({ fileName, bytes, name, axes }) => svc.addBytes(fileName, bytes, { name, axes }),
    'models.remove': ({ name }) => svc.remove(name),
    'models.setAxes': ({ name, axes }) => svc.setAxes(name, axes),
    'model.live.start': (req) => svc.liveStart(req),
    'model.live.stop': ({ sourceId }) => svc.liveStop(sourceId),
    'model.live.status': () => svc.liveStatus(),
  };
}
