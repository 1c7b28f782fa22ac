import { extname, isAbsolute, join } from 'node:path';
import type { Handlers } from '../dispatch.js';
import { CoreError } from '../errors.js';
import { deriveLabel, fileKind } from '../samples/formats/label-from-filename.js';
import type { DatasetSummary } from '../contract/contract.js';
import { classBalance } from '../samples/class-balance.js';
import { localSummary } from '../samples/local-summary.js';
import type { SampleStore } from '../samples/sample-store.js';
import { addPaths } from '../import/add-paths.js';
import { MAX_FILE_BYTES } from '../upload/ingestion-client.js';
import { moveSample } from '../upload/management-client.js';
import type { UploadService } from '../upload/upload-service.js';

type SampleMethods = 'samples.list' | 'samples.update' | 'samples.delete' | 'samples.addFile' | 'samples.addPaths' | 'samples.move' | 'samples.checkQuality' | 'dataset.summary';

export function sampleHandlers(store: SampleStore, uploads: UploadService): Pick<Handlers, SampleMethods> {
  return {
    'samples.list': ({ states, flagged, ids, limit, offset }) => {
      const filter = { ...(states ? { states } : {}), ...(flagged !== undefined ? { flagged } : {}), ...(ids ? { ids } : {}) };
      const samples = store.list({ ...filter, limit: limit ?? 500, offset: offset ?? 0 });
      if (flagged !== undefined || ids) return { samples, total: store.count(filter) };
      const counts = store.counts();
      const total = states ? states.reduce((n, s) => n + counts[s], 0) : Object.values(counts).reduce((a, b) => a + b, 0);
      return { samples, total };
    },
    'samples.update': ({ ids, label, category, metadata }) => {
      const updated = store.db.transaction(() =>
        ids.map((id) => store.update(id, { ...(label !== undefined ? { label } : {}), ...(category ? { category } : {}), ...(metadata ? { metadata } : {}) })),
      )();
      uploads.announce(ids);
      return { updated };
    },
    'samples.delete': async ({ ids }) => {
      for (const id of ids) await store.delete(id);
      uploads.announce(ids);
      return { deleted: ids.length };
    },
    'samples.addFile': async ({ name, bytes, category, label, metadata, queue }) => {
      const kind = fileKind(name);
      if (kind === null || kind === 'labels') {
        throw new CoreError('InvalidArguments', `"${name}": the platform does not accept ${extname(name) || 'files without an extension'}; use .json, .cbor, .csv, .parquet, .wav, .jpg, .png, .mp4 or .avi.`);
      }
      if (bytes.byteLength > MAX_FILE_BYTES) throw new CoreError('InvalidArguments', `"${name}" is over the platform's 100 MB per file.`);
      const sample = await store.addBytes(
        { name, kind, label: label === undefined ? deriveLabel(name) : label, category, metadata: metadata ?? {}, queue: queue ?? false },
        bytes,
      );
      if (queue) uploads.queue.enqueue([sample.id]);
      uploads.announce([sample.id]);
      return sample;
    },
    'samples.addPaths': async ({ paths, category, label, metadata, queue }) => {
      const results = await addPaths(store, paths, { category, label, metadata: metadata ?? {}, queue: queue ?? false });
      const added = results.flatMap((r) => (r.status === 'added' ? [r.sample.id] : []));
      if (queue && added.length > 0) uploads.queue.enqueue(added);
      if (added.length > 0) uploads.announce(added);
      return { results };
    },
    'samples.move': async ({ id, newCategory }) => {
      const s = store.get(id);
      if (s.state !== 'uploaded' || s.platformSampleId === null) {
        if (s.state === 'uploaded') throw new CoreError('InvalidArguments', `The platform did not tell us the id of "${s.name}", so it cannot be moved from here; move it on the platform.`);
        // Not on the platform yet: a local change, told to every view like any other.
        const moved = store.update(id, { category: newCategory });
        uploads.announce([id]);
        return moved;
      }
      await moveSample(await uploads.management(), s.platformSampleId, newCategory);
      store.db.prepare('UPDATE samples SET category = ? WHERE id = ?').run(newCategory, id);
      store.changed([id]);
      uploads.announce([id]);
      return store.get(id);
    },
    'samples.checkQuality': async ({ ids }) => {
      const checked = [];
      for (const id of ids) {
        const s = store.get(id);
        const verdict = await store.inspect({ path: isAbsolute(s.file) ? s.file : join(store.dataDir, s.file) }, { name: s.name, kind: s.kind, label: s.label, category: s.category, lengthMs: s.lengthMs, extra: s.extra });
        if (!verdict) throw new CoreError('Unavailable', 'This shell does not run data-quality checks.');
        store.setQuality(id, verdict);
        checked.push(store.get(id));
      }
      uploads.announce(ids);
      return { checked };
    },
    'dataset.summary': async ({ platform: ask }) => {
      const local = localSummary(store);
      let platform: DatasetSummary | null = null;
      let platformError: string | null = null;
      if (ask !== false) {
        try {
          platform = await uploads.platformSummary();
        } catch (err) {
          platformError = (err as Error).message;
        }
      }
      // Counted after the platform answered: a sample confirmed meanwhile is on both sides.
      return { platform, platformError, local, balance: classBalance(store.db, platform, platformError) };
    },
  };
}
