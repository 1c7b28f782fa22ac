import type { Handlers } from '../dispatch.js';
import { CoreError } from '../errors.js';
import type { EventBus } from '../event-bus.js';
import { DecodedCache } from '../review/decoded-cache.js';
import type { Decoded } from '../review/decoded.js';
import { deriveSamples } from '../review/derive.js';
import { envelope } from '../review/envelope.js';
import { Jobs } from '../jobs.js';
import { spectrogram } from '../review/spectrogram.js';
import { DetectionCache, detectForSample } from '../review/segment/detect-sample.js';
import { cropWindow, eventWindows, fixedWindows, givenWindows, msToRow } from '../review/windows.js';
import { setSampleRate } from '../capture/set-rate.js';
import { exportSamples } from '../samples/exchange.js';
import { exportFolder } from '../samples/export-folder.js';
import { encodeWav } from '../samples/formats/wav.js';
import { interleave } from '../samples/formats/wav-pcm.js';
import type { SampleStore } from '../samples/sample-store.js';

type ReviewMethods = 'samples.detectEvents' | 'samples.overview' | 'samples.range' | 'samples.spectrogram' | 'samples.audio' | 'samples.crop' | 'samples.split' | 'samples.export' | 'samples.cancel' | 'samples.setRate';

export interface ReviewDeps {
  store: SampleStore;
  bus: EventBus;
  /** The project's HMAC key, if set: crops and splits of signed samples are signed with it. */
  hmacKey: () => Promise<string | undefined>;
  /** New samples appeared (the list refetches). */
  announce: (ids: string[]) => void;
  /** The project's window, if the person set it: the default length of detected windows. */
  projectWindowMs?: () => number | null;
  cacheBytes?: number;
}

/** Playback is sent in pieces of at most this much PCM, so an hour of audio never crosses the wire at once. */
const MAX_PLAYBACK_BYTES = 24 * 1024 * 1024;

export function reviewHandlers(d: ReviewDeps): { handlers: Pick<Handlers, ReviewMethods>; jobs: Jobs } {
  const cache = new DecodedCache(d.store, d.cacheBytes);
  const jobs = new Jobs((p) => d.bus.emit('samples.progress', p));
  // A discarded original should not hold its decoded hour of data until the cache evicts it.
  d.bus.on('samples.changed', ({ ids }) => {
    for (const id of ids) {
      if (!cache.has(id)) continue;
      try {
        d.store.get(id);
      } catch {
        cache.forget(id);
      }
    }
  });
  const decoded = async (id: string) => {
    const sample = d.store.get(id);
    return { sample, dec: await cache.get(sample) };
  };
  /**
   * The key for a crop or split of this sample: read only when the original is signed, as only a
   * signed original's results are signed (derive.ts). Read for every crop, a keychain that cannot be
   * used (no D-Bus, locked) refused "Crop failed: No keychain …" on samples no key ever signed: the
   * imported, the unsigned recordings, all audio.
   */
  const signingKeyFor = (dec: Decoded) => (dec.acquisition?.alg === 'HS256' ? d.hmacKey() : Promise.resolve(undefined));
  const rowsOf = (dec: { intervalMs: number; rows: number }, startMs: number | undefined, endMs: number | undefined) => {
    const from = msToRow(startMs ?? 0, dec.intervalMs, dec.rows);
    const to = endMs === undefined ? dec.rows : Math.max(from, msToRow(endMs, dec.intervalMs, dec.rows));
    return { from, to };
  };

  const analyses = new DetectionCache();
  const handlers: Pick<Handlers, ReviewMethods> = {
    'samples.setRate': async ({ id, frequencyHz }) => {
      const sample = await setSampleRate(d.store, id, frequencyHz, await d.hmacKey());
      cache.forget(id); // decoded with the placeholder interval
      d.announce([id]);
      return sample;
    },
    'samples.detectEvents': async ({ id, params }) => {
      const { sample, dec } = await decoded(id);
      const windowMs = params?.windowMs ?? d.projectWindowMs?.() ?? undefined;
      return detectForSample(analyses, sample, dec, { ...params, ...(windowMs !== undefined ? { windowMs } : {}) });
    },
    'samples.overview': async ({ id, width }) => {
      const { sample, dec } = await decoded(id);
      return {
        id, kind: dec.kind, axes: dec.axes, intervalMs: dec.intervalMs, rows: dec.rows, lengthMs: dec.rows * dec.intervalMs, sampleRate: dec.sampleRate,
        structuredLabels: sample.structuredLabels ?? [], envelope: envelope(dec, 0, dec.rows, width),
      };
    },
    'samples.range': async ({ id, startMs, endMs, width }) => {
      const { dec } = await decoded(id);
      // One row either side, so a zoomed line runs to the plot's edges.
      const { from, to } = rowsOf(dec, startMs, endMs);
      return envelope(dec, Math.max(0, from - 1), Math.min(dec.rows, to + 1), width);
    },
    'samples.spectrogram': async ({ id, startMs, endMs, frames, fftSize }) => {
      const { dec } = await decoded(id);
      if (dec.kind !== 'audio') throw new CoreError('InvalidArguments', 'Only audio samples have a spectrogram.');
      const { from, to } = rowsOf(dec, startMs, endMs);
      return spectrogram(dec.columns[0]!, dec.scale, dec.sampleRate!, from, to, frames, fftSize ?? 512);
    },
    'samples.audio': async ({ id, startMs, endMs }) => {
      const { dec } = await decoded(id);
      if (dec.kind !== 'audio') throw new CoreError('InvalidArguments', 'Only audio samples can be played.');
      const { from, to } = rowsOf(dec, startMs, endMs);
      const maxFrames = Math.floor(MAX_PLAYBACK_BYTES / (2 * dec.columns.length));
      const end = Math.min(to, from + maxFrames);
      const wav = encodeWav(interleave(dec.columns as Int16Array[], from, end), { sampleRate: dec.sampleRate!, channels: dec.columns.length });
      return { wav: new Uint8Array(wav.buffer as ArrayBuffer, wav.byteOffset, wav.byteLength), startMs: from * dec.intervalMs, endMs: end * dec.intervalMs, truncated: end < to };
    },
    'samples.crop': async ({ id, startMs, endMs }) => {
      const { sample, dec } = await decoded(id);
      const w = cropWindow(dec.rows, dec.intervalMs, startMs, endMs);
      const [made] = await deriveSamples(d.store, sample, dec, [w], { how: 'crop', hmacKey: await signingKeyFor(dec) });
      d.announce([made!.id]);
      return made!;
    },
    'samples.split': ({ id, jobId, split }) =>
      jobs.run(jobId, 'split', async (job) => {
        const { sample, dec } = await decoded(id);
        const windows = split.mode === 'fixed'
          ? fixedWindows(dec.rows, dec.intervalMs, split.windowMs, split.strideMs)
          : split.mode === 'windows'
            ? givenWindows(dec.rows, dec.intervalMs, split.windows)
            : eventWindows(dec.rows, dec.intervalMs, sample.structuredLabels, split.paddingMs);
        job.progress(0, windows.length);
        const made = await deriveSamples(d.store, sample, dec, windows, { how: 'split', hmacKey: await signingKeyFor(dec), signal: job.signal, onProgress: job.progress });
        d.announce(made.map((s) => s.id));
        return { samples: made };
      }),
    'samples.export': ({ jobId, ids, outDir, csv }) =>
      jobs.run(jobId, 'export', async (job) => {
        const samples = ids.map((i) => d.store.get(i));
        const dir = exportFolder(d.store.dataDir, outDir);
        job.progress(0, samples.length);
        const { files } = await exportSamples(d.store, samples, dir, { csv: csv ?? false, signal: job.signal, onProgress: job.progress });
        return { files, dir };
      }),
    'samples.cancel': ({ jobId }) => ({ cancelled: jobs.cancel(jobId) }),
  };
  return { handlers, jobs };
}
