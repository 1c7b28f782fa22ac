import type { Handlers } from '../dispatch.js';
import { keyStatus } from '../secrets/key-service.js';
import type { ProjectKeys } from '../secrets/project-keys.js';
import type { SettingsStore } from '../settings/settings-store.js';
import type { UploadService } from '../upload/upload-service.js';

type UploadMethods = 'queue.status' | 'uploads.pending' | 'queue.enqueue' | 'queue.dequeue' | 'queue.pause' | 'queue.resume' | 'keys.status' | 'keys.set' | 'keys.clear';

export function uploadHandlers(uploads: UploadService, keys: ProjectKeys, settings: SettingsStore): Pick<Handlers, UploadMethods> {
  const q = uploads.queue;
  const project = () => settings.get().projectId;
  return {
    'queue.status': () => q.status(),
    'uploads.pending': ({ limit }) => q.queueStore.pending(limit ?? 50),
    'queue.enqueue': ({ ids, force }) => q.enqueueChecked(ids, force ?? false),
    'queue.dequeue': ({ ids }) => {
      const dequeued = q.queueStore.dequeue(ids);
      uploads.announce(ids);
      return { dequeued };
    },
    'queue.pause': () => {
      q.pause('Paused by you.');
      return q.status();
    },
    'queue.resume': () => {
      q.resume();
      return q.status();
    },
    'keys.status': () => keyStatus(keys, project()),
    'keys.set': async ({ kind, key }) => {
      if (kind === 'api-key') await keys.setApiKey(project(), key);
      else await keys.setHmacKey(project(), key);
      // A queue paused for a missing or refused key can go on now.
      if (kind === 'api-key' && q.status().paused) q.resume();
      return keyStatus(keys, project());
    },
    'keys.clear': async ({ kind }) => {
      if (kind === 'api-key') await keys.clearApiKey(project());
      else await keys.clearHmacKey(project());
      return keyStatus(keys, project());
    },
  };
}
