/** The sample view's methods: overview, zoom, spectrogram, playback, set rate, crop, split, export, long jobs. */
import { z } from 'zod';
import { Ids, JobId, Ms } from './method-args.js';
import { DetectParams, EventDetection, SampleEnvelope, SampleOverview, Spectrogram, SplitMode } from './review-schema.js';
import { Sample } from './sample-schema.js';

const PlotWidth = z.number().int().positive().max(20_000);

export const reviewMethods = {
  /** Proposed split windows, one per event found (audio: energy; sensors: movement on any axis). */
  'samples.detectEvents': { input: z.object({ id: z.string().min(1), params: DetectParams.optional() }).strict(), output: EventDetection },
  /** Axes, length, marked events and the whole sample at `width` columns: the first paint of the sample view. */
  'samples.overview': { input: z.object({ id: z.string().min(1), width: PlotWidth }).strict(), output: SampleOverview },
  /** A zoomed window, as rows or min/max columns. */
  'samples.range': { input: z.object({ id: z.string().min(1), startMs: Ms, endMs: Ms, width: PlotWidth }).strict(), output: SampleEnvelope },
  'samples.spectrogram': {
    input: z.object({ id: z.string().min(1), startMs: Ms.optional(), endMs: Ms.optional(), frames: z.number().int().positive().max(4000), fftSize: z.number().int().min(64).max(4096).optional() }).strict(),
    output: Spectrogram,
  },
  /** WAV bytes for playback (at most a few minutes from `startMs`; `endMs` says where it stops). */
  'samples.audio': {
    input: z.object({ id: z.string().min(1), startMs: Ms.optional(), endMs: Ms.optional() }).strict(),
    output: z.object({ wav: z.instanceof(Uint8Array), startMs: z.number(), endMs: z.number(), truncated: z.boolean() }),
  },
  /**
   * Gives a sample kept without its sampling rate (its note says so; extra.rate_missing) the rate
   * it was recorded at: it is encoded again with that interval, signed when an HMAC key is set,
   * and can then be queued.
   */
  'samples.setRate': { input: z.object({ id: z.string().min(1), frequencyHz: z.number().positive().max(100_000) }).strict(), output: Sample },
  /** A new sample from part of one; the original stays. */
  'samples.crop': { input: z.object({ id: z.string().min(1), startMs: Ms, endMs: Ms }).strict(), output: Sample },
  /** New samples from windows of one, all or none; progress as `samples.progress` (op "split"). */
  'samples.split': { input: z.object({ id: z.string().min(1), jobId: JobId, split: SplitMode }).strict(), output: z.object({ samples: z.array(Sample) }) },
  /** Copies samples out in the platform's layout (info.labels), optionally as CSV; op "export". */
  'samples.export': {
    input: z.object({ jobId: JobId, ids: Ids, outDir: z.string().min(1).max(4096).optional(), csv: z.boolean().optional() }).strict(),
    output: z.object({ files: z.number().int().nonnegative(), dir: z.string() }),
  },
  /** Stops a split, an export or a bulk classify; its call then fails with Cancelled (a split or export leaves nothing behind; samples a bulk classify finished keep their results). */
  'samples.cancel': { input: z.object({ jobId: JobId }).strict(), output: z.object({ cancelled: z.boolean() }) },
} as const;
