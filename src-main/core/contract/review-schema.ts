/**
 * Shapes of the sample view: long jobs with a progress bar, a sample drawn at any width (min/max
 * per pixel column), spectrograms, and the windows a split or an event detection proposes.
 */
import { z } from 'zod';
import { Ms } from './method-args.js';
import { StructuredLabel } from './sample-schema.js';

/** A long job (split, export) the UI shows with a progress bar and can cancel by its id. */
export const JobProgress = z.object({
  /** Chosen by the caller, so it can listen and cancel before the starting call answers. */
  jobId: z.string(),
  op: z.enum(['split', 'export', 'classify', 'test']),
  done: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
  state: z.enum(['running', 'done', 'cancelled', 'failed']),
});
export type JobProgress = z.infer<typeof JobProgress>;

/** Min/max per pixel column of a window of the sample (or the rows themselves when few). */
export const SampleEnvelope = z.object({
  /** Start of each column, ms from the start of the sample. */
  t: z.instanceof(Float64Array),
  /** One array per axis; min === max (the same values) when `raw`. */
  min: z.array(z.instanceof(Float32Array)),
  max: z.array(z.instanceof(Float32Array)),
  firstRow: z.number().int().nonnegative(),
  rows: z.number().int().nonnegative(),
  raw: z.boolean(),
});
export type SampleEnvelope = z.infer<typeof SampleEnvelope>;

export const SampleOverview = z.object({
  id: z.string(),
  kind: z.enum(['sensor', 'audio']),
  axes: z.array(z.object({ name: z.string(), units: z.string() })),
  intervalMs: z.number().positive(),
  rows: z.number().int().nonnegative(),
  lengthMs: z.number().nonnegative(),
  /** Audio only. */
  sampleRate: z.number().positive().nullable(),
  structuredLabels: z.array(StructuredLabel),
  /** The whole sample at the requested width. */
  envelope: SampleEnvelope,
});
export type SampleOverview = z.infer<typeof SampleOverview>;

export const Spectrogram = z.object({
  frames: z.number().int().nonnegative(),
  bins: z.number().int().positive(),
  /** frames × bins bytes, frame-major, bin 0 = 0 Hz; 0 = −100 dBFS or less, 255 = 0 dBFS. */
  data: z.instanceof(Uint8Array),
  startMs: z.number().nonnegative(),
  endMs: z.number().nonnegative(),
  maxHz: z.number().positive(),
});
export type Spectrogram = z.infer<typeof Spectrogram>;

/** A window of a sample in ms (start < end), e.g. one proposed by `samples.detectEvents`. */
const MsWindow = z.object({ startMs: Ms, endMs: Ms }).strict().refine((w) => w.endMs > w.startMs, 'a window must end after it starts');
export const SplitMode = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('fixed'), windowMs: z.number().positive().max(24 * 3600_000), strideMs: z.number().positive().max(24 * 3600_000).optional() }).strict(),
  z.object({ mode: z.literal('events'), paddingMs: Ms.default(0) }).strict(),
  /** Windows chosen by the caller: the detected ones, after the person removed or moved some. */
  z.object({ mode: z.literal('windows'), windows: z.array(MsWindow).min(1).max(20_000) }).strict(),
]);
export type SplitMode = z.input<typeof SplitMode>;

/** How `samples.detectEvents` looks for events; every field has a default (see core/review/segment/detect.ts). */
export const DetectParams = z.object({
  /** Length of each window; default 1000 ms. */
  windowMs: z.number().positive().max(24 * 3600_000).optional(),
  /** Amplitude ratio over the measured noise floor an event must reach (default 4, ≈ 12 dB). */
  threshold: z.number().gt(1).max(10_000).optional(),
  /** Events closer than this are one (default 250 ms). */
  minGapMs: Ms.optional(),
  /** Keep events too near an end, their window shifted inside (never padded). Default false. */
  keepEdges: z.boolean().optional(),
}).strict();
export type DetectParams = z.infer<typeof DetectParams>;

export const DetectedWindow = z.object({
  startMs: z.number().nonnegative(),
  endMs: z.number().nonnegative(),
  /** The event the window is centred on. */
  eventStartMs: z.number().nonnegative(),
  eventEndMs: z.number().nonnegative(),
  /** How far the event rose over the floor, dB. */
  peakDb: z.number(),
  /** Moved inside the sample because it would have run past an end. */
  shifted: z.boolean(),
});
export type DetectedWindow = z.infer<typeof DetectedWindow>;

export const EventDetection = z.object({
  windows: z.array(DetectedWindow),
  /** Events left out because a centred window would run past an end (keepEdges off). */
  droppedAtEdges: z.number().int().nonnegative(),
  /** Audio: the floor in dBFS; sensors: null (measured in each axis's own noise). */
  floorDbfs: z.number().nullable(),
  windowMs: z.number().positive(),
  threshold: z.number(),
  minGapMs: z.number(),
});
export type EventDetection = z.infer<typeof EventDetection>;
