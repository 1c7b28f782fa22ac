/**
 * THE contract between the core and any UI (Electron renderer over IPC, browser over WebSocket).
 *
 * Every method is `input schema → output schema`, every event stream has a payload schema. The
 * bindings (electron/ipc.ts, server/ws-session.ts) are generic over this table, so adding a
 * capability never touches them. The renderer imports only the *types* derived at the bottom of
 * this file, which is why nothing here may import Node or Electron modules.
 * Over 400 lines on purpose: the method and event table is read as one list; the shapes it still
 * holds move to core/contract/ beside model-schema.ts (issue 27, part 5).
 */
import { z } from 'zod';
import { Diagnostics } from './contract/diagnostics-schema.js';
import { ImportPendingResult, PendingFile, WatchedFolder, WatchedFolderInput, WatchedFolderState } from './contract/watch-schema.js';
import { PlatformRequestInfo, RemoteDevice, wsUrl } from './contract/remote-schema.js';
import { Category } from './category.js';
import {
  AddPathResult, BulkResult, ClassBalance, DatasetSummary, Metadata, QueueStatus, Sample, SampleFacets, SampleQueryFilter, SampleSort, SampleState, StructuredLabel,
} from './contract/sample-schema.js';
import {
  Classification, ClassificationDigest, ClassifyAfterUpload, ClassifyOptions, ClassifyTarget, ClassifyVariant, CollectSummary, ImpulseId,
} from './contract/classify-schema.js';

export * from './contract/sample-schema.js';
export * from './contract/model-schema.js';
import { LiveModelRequest, LiveModelStatus, ModelEntry, ModelName, ModelVerdictBatch } from './contract/model-schema.js';
export { PlatformRequestInfo, RemoteDevice, RemoteLinkState, RemoteRequest, RemoteSensor } from './contract/remote-schema.js';
export {
  Classification, ClassificationDigest, ClassificationSummary, ClassifiedBlock, ClassifiedWindow, ClassifyAfterUpload, ClassifyOptions,
  ClassifyTarget, ClassifyVariant, CollectSummary,
} from './contract/classify-schema.js';

// ---------- shared shapes ----------

/** Error codes a caller can branch on. The message is for people; the code is for code. */
export const ErrorCode = z.enum([
  'UnknownMethod',
  'InvalidArguments',
  'MalformedMessage',
  'MessageTooLarge',
  'Unauthorized',
  'NotFound',
  'Busy',
  'Disconnected',
  'PermissionDenied',
  'Unavailable',
  /** Long work the user cancelled (a split, an export): nothing of it was kept. */
  'Cancelled',
  'Internal',
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const WireError = z.object({
  code: ErrorCode,
  message: z.string(),
  /** Extra facts for the UI (e.g. which argument failed); never secrets. */
  details: z.unknown().optional(),
});
export type WireError = z.infer<typeof WireError>;

const httpUrl = z
  .string()
  .trim()
  .refine((s) => /^https?:\/\/[^\s/]+/i.test(s), { message: 'must be an http:// or https:// URL' });

export const Settings = z.object({
  ingestionUrl: httpUrl,
  managementUrl: httpUrl,
  projectId: z.number().int().positive().nullable(),
  deviceName: z.string().trim().min(1, 'device name must not be empty').max(128),
  /** How many samples the user aims for per label (class balance shows progress toward it). */
  labelTargets: z.record(z.string().min(1).max(128), z.number().int().positive().max(1_000_000)).refine((t) => Object.keys(t).length <= 1000, 'at most 1000 label targets'),
  /** Upload requests in flight at once (each carries up to 1000 files). */
  uploadConcurrency: z.number().int().min(1, 'uploads in parallel must be at least 1').max(16, 'uploads in parallel must be at most 16'),
  /** Which flagged captures stay out of the upload queue until "Upload anyway": errors only, any finding, or none. */
  qualityHold: z.enum(['errors', 'all', 'off']),
  /** Captures shorter than this get a "too short" error (0 = no minimum). */
  qualityMinLengthMs: z.number().int().nonnegative().max(3_600_000),
  /** The project's window size (its impulse's, which the platform's API does not tell us): automatic splits default to it; null = 1000 ms. */
  projectWindowMs: z.number().int().positive().max(3_600_000).nullable(),
  /**
   * The platform's remote-management service (sources "connected to the platform" open a WebSocket
   * to it); null = derived from the ingestion URL (see remote/remote-url.ts).
   */
  remoteMgmtUrl: wsUrl.nullable(),
  // No .default() on these two: zod puts defaults into settings.set's partial input too, which would
  // reset them on every other change. A settings file without them gets DEFAULT_SETTINGS' values.
  /** Capture option "classify each take after upload": off, only takes going to testing, or every take. */
  classifyAfterUpload: ClassifyAfterUpload,
  /** The model variant and impulse id to classify with, remembered per project (key: the project id as text). */
  classifyTargets: z.record(z.string().regex(/^\d+$/, 'keys are project ids'), ClassifyTarget).refine((t) => Object.keys(t).length <= 1000, 'at most 1000 projects'),
});
export type Settings = z.infer<typeof Settings>;

/** Said once, by the start that found the sample index lost and rebuilt it from the sample files. */
export const IndexRebuild = z.object({
  at: z.string(),
  reason: z.string(),
  /** The damaged samples.db (and -wal/-shm), renamed samples.db.corrupt-<time>, in the data folder. */
  keptAs: z.array(z.string()),
  restored: z.number().int().nonnegative(),
  fromContents: z.number().int().nonnegative(),
  wasPending: z.number().int().nonnegative(),
  /** What was recovered and what was lost, for a person: the UI shows it as is. */
  message: z.string(),
});
export type IndexRebuild = z.infer<typeof IndexRebuild>;

export const AppInfo = z.object({
  name: z.string(),
  version: z.string(),
  shell: z.enum(['electron', 'browser', 'cli']),
  platform: z.string(),
  dataDir: z.string(),
  nodeVersion: z.string(),
  /** Set only in the run whose start rebuilt the index. */
  indexRebuild: IndexRebuild.nullable(),
  /**
   * What the shell serving this page must say on every start, or null: the browser shell serving
   * another machine over plain HTTP (`serve --insecure-http`).
   */
  shellWarning: z.string().nullable(),
});
export type AppInfo = z.infer<typeof AppInfo>;

export const SerialPortInfo = z.object({
  path: z.string(),
  friendlyName: z.string(),
  manufacturer: z.string().optional(),
  serialNumber: z.string().optional(),
  vendorId: z.string().optional(),
  productId: z.string().optional(),
});
export type SerialPortInfo = z.infer<typeof SerialPortInfo>;

/** Remembered per board (by USB serial number, else by path). */
export const PortSettings = z.object({
  baudRate: z.number().int().min(300).max(12_000_000),
  mode: z.enum(['lines', 'at']),
  /** Override of the detected frequency; null = use the measured one. */
  frequencyHz: z.number().positive().max(100_000).nullable(),
  axes: z.array(z.string().min(1).max(64)).max(64).nullable(),
  units: z.array(z.string().max(32)).max(64).nullable(),
});
export type PortSettings = z.infer<typeof PortSettings>;

/** Anything the user can stream from: a serial port, the built-in simulator, a microphone ("audio:<deviceId>"). */
export const Source = z.object({
  id: z.string(),
  kind: z.enum(['simulated', 'serial', 'audio']),
  name: z.string(),
  /** Shown next to the name, e.g. "simulated – not real data" or a USB serial number. */
  detail: z.string(),
  streaming: z.boolean(),
  /** Microphones: the system's default input. */
  default: z.boolean().optional(),
});
export type Source = z.infer<typeof Source>;

export const StreamInfo = z.object({
  sourceId: z.string(),
  axes: z.array(z.object({ name: z.string(), units: z.string() })),
  rateHz: z.number().positive(),
  simulated: z.boolean(),
});
export type StreamInfo = z.infer<typeof StreamInfo>;

/** Live health of a stream: what the reader measured and what it refused. */
export const StreamStats = z.object({
  sourceId: z.string(),
  frequencyHz: z.number().nullable(),
  /** A common rate within 0.1% of the measured one, if any (shown, never applied silently). */
  suggestedHz: z.number().nullable(),
  jitterMs: z.number().nullable(),
  droppedLines: z.number().int().nonnegative(),
  goodLines: z.number().int().nonnegative(),
  badLines: z.number().int().nonnegative(),
  badByReason: z.record(z.string(), z.number().int().nonnegative()),
  lastBadLine: z.string().nullable(),
});
export type StreamStats = z.infer<typeof StreamStats>;

export const DEMO_SOURCE_ID = 'simulated:imu';
export const MAX_DEMO_RATE_HZ = 20_000;

// Samples, their quality, the queue, the class balance, finding samples: contract/sample-schema.ts.

export const RecordingStatus = z.object({
  sessionId: z.string(),
  state: z.enum(['recording', 'saving', 'saved', 'failed']),
  sourceIds: z.array(z.string()),
  startedAt: z.string(),
  lengthMs: z.number().nullable(),
  /** Filled in once saved; a source that dropped out mid-way yields an incomplete sample. */
  sampleIds: z.array(z.string()),
  /** Of those, how many went into the upload queue, and how many the data-quality setting held back. */
  queued: z.number().int().nonnegative(),
  held: z.number().int().nonnegative(),
  error: z.string().nullable(),
  /** Events marked while recording (ms from the start); saved as each sample's structured labels. */
  events: z.array(z.object({ label: z.string(), startMs: z.number().nonnegative(), endMs: z.number().nonnegative().nullable() })),
  /** Sources that dropped out mid-recording (unplugged, busy): their part is kept as an incomplete sample. */
  interruptions: z.array(z.object({ sourceId: z.string(), error: WireError })),
  /** Set when the platform asked for this take (remote management): the live view says so. */
  platform: PlatformRequestInfo.nullable().optional(),
});
export type RecordingStatus = z.infer<typeof RecordingStatus>;


/** One part of "Test connection": ok true/false, or null when it is only said (optional, or not reached). */
export const ConnectionStep = z.object({
  part: z.enum(['api-key', 'project', 'management', 'ingestion', 'hmac-key']),
  ok: z.boolean().nullable(),
  message: z.string(),
  /** The URL this step called, so a wrong one is visible. */
  url: z.string().nullable(),
});
export type ConnectionStep = z.infer<typeof ConnectionStep>;
export const ConnectionCheck = z.object({ ok: z.boolean(), steps: z.array(ConnectionStep), checkedAt: z.string() });
export type ConnectionCheck = z.infer<typeof ConnectionCheck>;

export const KeyKind = z.enum(['api-key', 'hmac-key']);
/** Where a key comes from. Only the keychain stores it; the others hold it in memory for this run and are never written anywhere. */
export const KeySource = z.object({
  /**
   * keychain: the system keychain (stored there, kept across runs); environment: a variable such as
   * CAPTURE_DESK_API_KEY; flag: a command-line flag; file: a key file (--api-key-file); session:
   * typed in (or cleared) over one of those for this run only.
   */
  from: z.enum(['keychain', 'environment', 'flag', 'file', 'session']),
  /** The variable, flag or file it came from; null for the keychain and the session. */
  name: z.string().nullable(),
  /** False: held in memory only, gone when this run ends. */
  stored: z.boolean(),
});
export type KeySource = z.infer<typeof KeySource>;
export const KeyStatus = z.object({
  apiKey: z.enum(['set', 'not set', 'unknown']),
  hmacKey: z.enum(['set', 'not set', 'unknown']),
  /** Why the keychain cannot be used, if it cannot: keys are then refused, never stored in plain text. */
  keychainProblem: z.string().nullable(),
  /** Where each key comes from; a key held in memory can be replaced or cleared for this run even without a keychain. */
  apiKeySource: KeySource,
  hmacKeySource: KeySource,
});
export type KeyStatus = z.infer<typeof KeyStatus>;

// ---------- microphones ----------

export const MIN_AUDIO_RATE = 8000;
export const MAX_AUDIO_RATE = 48_000;
export const MAX_PRE_ROLL_MS = 10_000;
/** Remembered across restarts; the live view and recordings of a microphone use them. */
export const AudioSettings = z.object({
  /** The microphone picked last (null = the system default). */
  deviceId: z.string().min(1).nullable(),
  sampleRate: z.number().int().min(MIN_AUDIO_RATE).max(MAX_AUDIO_RATE),
  /** Audio from before the record key was pressed that a recording keeps. */
  preRollMs: z.number().int().min(0).max(MAX_PRE_ROLL_MS),
});
export type AudioSettings = z.infer<typeof AudioSettings>;

/** ~30 per second while a microphone streams: what the meter and waveform draw (raw PCM never goes to the UI). */
export const AudioLevels = z.object({
  sourceId: z.string(),
  sampleRate: z.number().positive(),
  /** Index (since the capture started) of the first frame this report covers. */
  firstFrame: z.number().int().nonnegative(),
  rmsDbfs: z.number(),
  peakDbfs: z.number(),
  /** Something reached full scale within the last second. */
  clipping: z.boolean(),
  /** Below −60 dBFS for two seconds (muted or dead microphone). */
  silent: z.boolean(),
  /** New waveform columns as [min, max] pairs (−1…1), `columnsPerSecond` per second. */
  waveform: z.instanceof(Float32Array),
  columnsPerSecond: z.number().positive(),
});
export type AudioLevels = z.infer<typeof AudioLevels>;

// ---------- boards running the platform's firmware (AT) ----------

export const AtBoardInfo = z.object({
  deviceId: z.string(),
  deviceType: z.string(),
  atVersion: z.string(),
  transferBaudRate: z.number().nullable(),
  sensors: z.array(z.object({ name: z.string(), maxSampleLengthS: z.number().nullable(), frequencies: z.array(z.number()) })),
});
export type AtBoardInfo = z.infer<typeof AtBoardInfo>;

/** What an AT board is doing while it records: the firmware's stages, then the read-back. */
export const AtProgress = z.object({
  path: z.string(),
  stage: z.enum(['connecting', 'sampling', 'sampled', 'processing', 'processed', 'uploading', 'reading', 'saved', 'failed']),
  receivedBytes: z.number().int().nonnegative().optional(),
  totalBytes: z.number().int().nonnegative().nullable().optional(),
  error: z.string().optional(),
});
export type AtProgress = z.infer<typeof AtProgress>;

const none = z.object({}).strict();
const Ids = z.array(z.string().min(1)).min(1).max(10_000);

// ---------- review: sample view, crop, split, playback, long jobs ----------

/** A long job (split, export) the UI shows with a progress bar and can cancel by its id. */
export const JobProgress = z.object({
  /** Chosen by the caller, so it can listen and cancel before the starting call answers. */
  jobId: z.string(),
  op: z.enum(['split', 'export', 'classify']),
  done: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
  state: z.enum(['running', 'done', 'cancelled', 'failed']),
});
export type JobProgress = z.infer<typeof JobProgress>;
const JobId = z.string().min(1).max(100);

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

const PlotWidth = z.number().int().positive().max(20_000);
const Ms = z.number().nonnegative().max(7 * 24 * 3600_000);
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

const reviewMethods = {
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

// ---------- does the model get it right? (classification on the platform) ----------

const ClassifyInput = z.object({
  id: z.string().min(1),
  /** Default: the project's remembered variant (samples.classifyOptions), else int8. */
  variant: ClassifyVariant.optional(),
  /** null = the project's default impulse; absent = the remembered impulse id. */
  impulseId: ImpulseId.nullable().optional(),
}).strict();

/** A local model's window stride (ms); null or absent: a quarter window. */
const StrideMs = z.number().positive().max(600_000).nullable();
/** Below this top score a window is "uncertain" (default 0.6). */
const Threshold = z.number().min(0).max(1);

const classifyMethods = {
  /**
   * Classifies an uploaded sample on the platform (classify/v2): one result per sliding window and
   * learn block, kept per sample, impulse and variant (the local sample never changes). When the
   * platform answers with a job it started, it waits for that job's status with backoff (events
   * samples.classifyState "waiting"), then asks once more, never starting a second job;
   * samples.cancelClassify stops the wait. Errors carry details {reason, platformMessage}.
   */
  'samples.classify': { input: ClassifyInput, output: Classification },
  /**
   * The kept result for the sample, variant and impulse (defaults as in samples.classify), without
   * asking the platform; null if none. With `model`: the newest result an added model of that name
   * made on this computer (samples.classifyLocal), whatever the sample's upload state.
   */
  'samples.classification': {
    input: z.object({ id: z.string().min(1), variant: ClassifyVariant.optional(), impulseId: ImpulseId.nullable().optional(), model: ModelName.optional() }).strict()
      .refine((i) => i.model === undefined || (i.variant === undefined && i.impulseId === undefined), 'give a model, or a variant and impulse id, not both'),
    output: Classification.nullable(),
  },
  /**
   * Classifies a sample in the data folder with an added model on this computer (models.*): no
   * upload, no platform settings. Windows of the model's length at i × strideMs from the sample's
   * start (default a quarter window), resampled when the rates differ by more than 1 %; kept like
   * the platform's results (variant "local:<hash16>", `local` says which model), so the review
   * plot's bands, "Model says" and its filter read it. Refused with a sentence (InvalidArguments,
   * details.reason "too-short" or "misfit") for a sample shorter than a window or whose axes or
   * rate do not fit the model; NotFound for a model not added.
   */
  'samples.classifyLocal': {
    input: z.object({ id: z.string().min(1), model: ModelName, strideMs: StrideMs.optional(), threshold: Threshold.optional() }).strict(),
    output: Classification,
  },
  /** Stops a samples.classify of this sample (it fails with Cancelled, nothing kept). */
  'samples.cancelClassify': { input: z.object({ id: z.string().min(1) }).strict(), output: z.object({ cancelled: z.boolean() }) },
  /** The current project's remembered variant and impulse id, and the capture option "classify each take after upload". */
  'samples.classifyOptions': { input: none, output: ClassifyOptions },
  /** Remembers variant and impulse id for the current project, and/or sets the capture option. */
  'samples.setClassifyOptions': {
    input: z.object({ variant: ClassifyVariant.optional(), impulseId: ImpulseId.nullable().optional(), afterUpload: ClassifyAfterUpload.optional() }).strict(),
    output: ClassifyOptions,
  },
  /** "Model says": the newest kept result of each sample that has one (samples without one are left out). */
  'samples.modelSays': { input: z.object({ ids: Ids }).strict(), output: z.object({ results: z.array(ClassificationDigest) }) },
  /**
   * "Collect more of": takes per label, windows classified as each label, the most-confused pairs.
   * since: takes saved from then (ISO; default: since this run of the app started); sessionId: one recording session.
   */
  'samples.collectSummary': {
    input: z.object({ since: z.string().datetime({ offset: true }).nullable().optional(), sessionId: z.string().min(1).max(100).optional() }).strict(),
    output: CollectSummary,
  },
} as const;

// ---------- methods ----------

// eslint-disable-next-line no-control-regex
const Label = z.string().trim().min(1, 'label must not be empty').max(128).refine((l) => !/[\u0000-\u001f\u007f]/.test(l), 'label must not contain control characters');

/** The project's exported model run on this computer (model/: registry, worker, live windows, catch mode). */
const modelMethods = {
  'models.list': { input: none, output: z.array(ModelEntry) },
  /** Adds an export where it lies (the desktop window's file chooser or drop): its .zip, folder or .js. */
  'models.add': { input: z.object({ path: z.string().min(1).max(4096), name: ModelName.optional(), axes: z.number().int().min(1).max(64).optional() }).strict(), output: ModelEntry },
  /** Adds an export's .zip from its bytes (the browser shell's file chooser or drop). */
  'models.addBytes': {
    input: z.object({ fileName: z.string().min(1).max(255), bytes: z.instanceof(Uint8Array), name: ModelName.optional(), axes: z.number().int().min(1).max(64).optional() }).strict(),
    output: ModelEntry,
  },
  'models.remove': { input: z.object({ name: ModelName }).strict(), output: z.object({ removed: z.boolean() }) },
  /** For a build that does not say its axes: the person says. */
  'models.setAxes': { input: z.object({ name: ModelName, axes: z.number().int().min(1).max(64) }).strict(), output: ModelEntry },
  /** Runs a model on a streaming source (start it first); verdicts come as model.verdicts events. Replaces a model already on it. */
  'model.live.start': { input: LiveModelRequest, output: LiveModelStatus },
  'model.live.stop': { input: z.object({ sourceId: z.string().min(1) }).strict(), output: z.object({ stopped: z.boolean() }) },
  'model.live.status': { input: none, output: z.array(LiveModelStatus) },
};

export const methods = {
  'app.info': { input: none, output: AppInfo },
  /** Versions, OS, paths, devices, keychain and queue state for a bug report; never a key. */
  'app.diagnostics': { input: none, output: Diagnostics },
  'settings.get': { input: none, output: Settings },
  'settings.set': { input: Settings.partial().strict(), output: Settings },
  'serial.listPorts': { input: none, output: z.array(SerialPortInfo) },
  'sources.list': { input: none, output: z.array(Source) },
  /** A port the system does not list (pseudo-terminal, Bluetooth rfcomm), remembered from now on. */
  'serial.addPath': { input: z.object({ path: z.string().min(1).max(4096) }).strict(), output: SerialPortInfo },
  'serial.removePath': { input: z.object({ path: z.string().min(1) }).strict(), output: z.object({ removed: z.boolean() }) },
  'serial.getSettings': { input: z.object({ path: z.string().min(1) }).strict(), output: PortSettings },
  'serial.setSettings': { input: z.object({ path: z.string().min(1), settings: PortSettings.partial() }).strict(), output: PortSettings },
  'stream.start': {
    input: z
      .object({
        sourceId: z.string().min(1),
        /** Only for the simulated source; real sources report the rate they measure. */
        rateHz: z.number().positive().max(MAX_DEMO_RATE_HZ).optional(),
      })
      .strict(),
    output: StreamInfo,
  },
  'stream.stop': { input: z.object({ sourceId: z.string().min(1) }).strict(), output: z.object({ stopped: z.boolean() }) },

  'samples.list': {
    input: z
      .object({
        states: z.array(SampleState).optional(),
        flagged: z.boolean().optional(),
        /** Only these samples (a view's own records, asked again after samples.changed); ids not answered were deleted. */
        ids: z.array(z.string().min(1)).max(5000).optional(),
        limit: z.number().int().positive().max(5000).optional(),
        offset: z.number().int().nonnegative().optional(),
      })
      .strict(),
    output: z.object({ samples: z.array(Sample), total: z.number().int().nonnegative() }),
  },
  /**
   * Finding samples among tens of thousands: a filter (search text, labels, category, state,
   * quality, source, session, dates), a sort (newest first by default) and a page (limit/offset;
   * the last page is offset ⌊(total−1)/limit⌋·limit). `total` is how many match in all. Answered
   * by SQLite's indexes in milliseconds on 50,000 samples (npm run bench -- dataset).
   */
  'samples.query': {
    input: z
      .object({ filter: SampleQueryFilter.optional(), sort: SampleSort.optional(), limit: z.number().int().positive().max(5000).optional(), offset: z.number().int().nonnegative().optional() })
      .strict(),
    output: z.object({ samples: z.array(Sample), total: z.number().int().nonnegative(), offset: z.number().int().nonnegative(), limit: z.number().int().positive() }),
  },
  /** The ids of every sample a filter matches, in the sort's order, in one query ("select all N matching"); at most `limit` (default and max 100,000). */
  'samples.idsMatching': {
    input: z.object({ filter: SampleQueryFilter.optional(), sort: SampleSort.optional(), limit: z.number().int().positive().max(100_000).optional() }).strict(),
    output: z.object({ ids: z.array(z.string()), total: z.number().int().nonnegative() }),
  },
  /** What the folder holds, for filter chips: labels, categories, states, kinds, quality findings, sources, recent sessions, what the model says, date range, with counts. */
  'samples.facets': { input: none, output: SampleFacets },
  /**
   * A bulk action on every sample a filter matches (not just a page): set label or category, queue
   * (force = "Upload anyway"), take out of the queue, delete, export (a job like samples.export,
   * progress as samples.progress op "export", cancelled by samples.cancel), or classify with an
   * added model on this computer (a job, op "classify": one sample at a time, each result kept as
   * it is made, so a cancel keeps those finished; a sample that cannot be classified is left with
   * its reason, code too-short, misfit or not-classified, and the rest go on). dryRun: nothing
   * changes, the answer says what would ("Set label on 12,345 samples? 2,000 on the platform stay
   * as they are"). expectTotal: the count the person confirmed; if the filter now matches another
   * number, nothing changes and the call fails (InvalidArguments) saying both numbers.
   */
  'samples.bulk': {
    input: z
      .object({
        filter: SampleQueryFilter,
        action: z.discriminatedUnion('type', [
          z.object({ type: z.literal('label'), label: Label.nullable() }).strict(),
          z.object({ type: z.literal('category'), category: Category }).strict(),
          z.object({ type: z.literal('queue'), force: z.boolean().optional() }).strict(),
          z.object({ type: z.literal('dequeue') }).strict(),
          z.object({ type: z.literal('delete') }).strict(),
          z.object({ type: z.literal('export'), jobId: JobId, outDir: z.string().min(1).max(4096).optional(), csv: z.boolean().optional() }).strict(),
          z.object({ type: z.literal('classify'), jobId: JobId, model: ModelName, strideMs: StrideMs.optional(), threshold: Threshold.optional() }).strict(),
        ]),
        dryRun: z.boolean().optional(),
        expectTotal: z.number().int().nonnegative().optional(),
      })
      .strict(),
    output: BulkResult,
  },
  /** Bulk relabel / recategorise / set metadata of samples not yet on the platform. */
  'samples.update': {
    input: z.object({ ids: Ids, label: Label.nullable().optional(), category: Category.optional(), metadata: Metadata.optional() }).strict(),
    output: z.object({ updated: z.array(Sample) }),
  },
  'samples.delete': { input: z.object({ ids: Ids }).strict(), output: z.object({ deleted: z.number().int() }) },
  /** A file dropped on the window. label: undefined = the platform's file-name rule, null = no label. */
  'samples.addFile': {
    input: z
      .object({ name: z.string().min(1).max(255), bytes: z.instanceof(Uint8Array), category: Category, label: Label.nullable().optional(), metadata: Metadata.optional(), queue: z.boolean().optional() })
      .strict(),
    output: Sample,
  },
  /**
   * Files added where they lie (the Electron window's drop and picker, which know real paths): no
   * copy through the UI, so the only size cap is the platform's 100 MB per file. Each path gets its
   * own outcome; one refused file never stops the others. label as in samples.addFile.
   */
  'samples.addPaths': {
    input: z
      .object({ paths: z.array(z.string().min(1).max(4096)).min(1).max(10_000), category: Category, label: Label.nullable().optional(), metadata: Metadata.optional(), queue: z.boolean().optional() })
      .strict(),
    output: z.object({ results: z.array(AddPathResult) }),
  },
  /** Runs the data-quality checks again (e.g. after changing the minimum length); never changes queue state. */
  'samples.checkQuality': { input: z.object({ ids: Ids }).strict(), output: z.object({ checked: z.array(Sample) }) },
  /** Moves an uploaded sample to another category on the platform (management API). */
  'samples.move': { input: z.object({ id: z.string(), newCategory: Category.exclude(['split']) }).strict(), output: Sample },

  /** Records from one or more live sources at once; each becomes its own sample, sharing a session id. */
  'record.start': {
    input: z
      .object({
        sourceIds: z.array(z.string().min(1)).min(1).max(8),
        label: Label.nullable(),
        category: Category,
        metadata: Metadata.optional(),
        /** null or absent: until stopped. */
        lengthMs: z.number().int().positive().max(24 * 3600_000).nullable().optional(),
        queue: z.boolean().optional(),
        /** Microphones: audio from before the press to keep (default: the audio settings' pre-roll). */
        preRollMs: z.number().int().min(0).max(MAX_PRE_ROLL_MS).optional(),
      })
      .strict(),
    output: RecordingStatus,
  },
  'record.stop': { input: z.object({ sessionId: z.string() }).strict(), output: RecordingStatus },
  /** While recording: a label starts an event (ending the open one); null ends the open event. */
  'record.mark': { input: z.object({ sessionId: z.string(), label: Label.nullable() }).strict(), output: RecordingStatus },

  /** Connects to a board running the platform's firmware and reads its configuration. */
  'at.readBoard': { input: z.object({ path: z.string().min(1) }).strict(), output: AtBoardInfo },
  /** The board samples on its own; the sample is read back byte for byte (signed on the board). */
  'at.record': {
    input: z
      .object({
        path: z.string().min(1),
        sensor: z.string().min(1).optional(),
        frequencyHz: z.number().positive().max(100_000).optional(),
        lengthMs: z.number().int().positive().max(24 * 3600_000),
        label: Label.nullable(),
        category: Category,
        metadata: Metadata.optional(),
        queue: z.boolean().optional(),
      })
      .strict(),
    output: Sample,
  },

  'queue.status': { input: none, output: QueueStatus },
  /** Flagged samples the quality setting holds back stay local and are counted in `held`; force = "Upload anyway". */
  'queue.enqueue': { input: z.object({ ids: Ids, force: z.boolean().optional() }).strict(), output: z.object({ queued: z.number().int(), held: z.number().int() }) },
  'queue.dequeue': { input: z.object({ ids: Ids }).strict(), output: z.object({ dequeued: z.number().int() }) },
  'queue.pause': { input: none, output: QueueStatus },
  'queue.resume': { input: none, output: QueueStatus },

  'keys.status': { input: none, output: KeyStatus },
  /** "Is this talking to my project?": key, project id, management API and ingestion service, each said plainly. */
  'project.check': { input: none, output: ConnectionCheck },
  /** The only way a key enters: it goes to the OS keychain and never comes back out to a UI. */
  'keys.set': { input: z.object({ kind: KeyKind, key: z.string().min(1).max(512) }).strict(), output: KeyStatus },
  'keys.clear': { input: z.object({ kind: KeyKind }).strict(), output: KeyStatus },

  'watch.list': { input: none, output: z.array(WatchedFolderState) },
  'watch.add': { input: WatchedFolderInput, output: WatchedFolder },
  'watch.remove': { input: z.object({ id: z.string() }).strict(), output: z.object({ removed: z.boolean() }) },
  'watch.setEnabled': { input: z.object({ id: z.string(), enabled: z.boolean() }).strict(), output: WatchedFolder },
  /** Files that were already in the folder when watching began: offered, never uploaded unasked. */
  'watch.pending': { input: z.object({ id: z.string() }).strict(), output: z.array(PendingFile) },
  'watch.importPending': { input: z.object({ id: z.string(), paths: z.array(z.string()).max(100_000).optional() }).strict(), output: ImportPendingResult },

  'audio.settings': { input: none, output: AudioSettings },
  /** A new rate restarts a running microphone capture with it. */
  'audio.setSettings': { input: AudioSettings.partial().strict(), output: AudioSettings },

  /**
   * The class balance. `balance` is the whole truth, online or not: every sample of this data
   * folder by category × label and by where it is (uploaded, queued, local, failed), with the
   * platform's numbers and the difference in words beside them when it answers. platform: false
   * skips asking the platform (an instant first paint; ask again for its numbers). `platform` and
   * `local` are the older halves (the platform's summary; samples not yet uploaded) kept for views
   * built on them.
   */
  'dataset.summary': {
    input: z.object({ platform: z.boolean().optional() }).strict(),
    output: z.object({ platform: DatasetSummary.nullable(), platformError: z.string().nullable(), local: DatasetSummary, balance: ClassBalance }),
  },
  /** Sources connected to the platform as devices (remote management), one entry per source that has been switched on. */
  'remote.list': { input: none, output: z.array(RemoteDevice) },
  /** "Connect to platform" on or off for a source; remembered per board and microphone. */
  'remote.setEnabled': {
    input: z.object({
      sourceId: z.string().min(1),
      enabled: z.boolean(),
      /** The id the platform knows this device by; null = the default (the board's own id, its USB serial number, or one derived from this computer and the port). */
      deviceId: z.string().trim().min(1).max(128).regex(/^[\x21-\x7e]+$/, 'device id must be printable ASCII without spaces').nullable().optional(),
    }).strict(),
    output: RemoteDevice,
  },
  /** Renames the device on the platform (management API: devices/{deviceId}/rename). */
  'remote.rename': { input: z.object({ sourceId: z.string().min(1), name: z.string().trim().min(1, 'name must not be empty').max(128) }).strict(), output: RemoteDevice },
  ...reviewMethods,
  ...classifyMethods,
  ...modelMethods,
} as const;

// ---------- events ----------

/** A classification's progress: asked (samples.classify) or after upload (auto). */
export const ClassifyState = z.object({
  id: z.string(),
  /** True for "classify each take after upload". */
  auto: z.boolean(),
  state: z.enum(['classifying', 'waiting', 'done', 'failed', 'cancelled']),
  impulseId: ImpulseId.nullable(),
  variant: ClassifyVariant,
  /** Requests made so far, this one included. */
  attempt: z.number().int().nonnegative(),
  /** "waiting": when the next request goes out. */
  retryInMs: z.number().nonnegative().nullable(),
  /** For people: what is happening, or what to do. */
  message: z.string().nullable(),
  /** "done": the summary (samples.classification has the windows). */
  digest: ClassificationDigest.nullable(),
  /** "failed"/"cancelled": why; details {reason, platformMessage}. */
  error: WireError.nullable(),
});
export type ClassifyState = z.infer<typeof ClassifyState>;

export const StreamBatch = z.object({
  sourceId: z.string(),
  /** Increments per batch; a gap tells the UI it missed batches (slow client). */
  seq: z.number().int().nonnegative(),
  /** Index of the first row since the stream started. */
  firstIndex: z.number().int().nonnegative(),
  axisCount: z.number().int().positive(),
  /** rows × axisCount values, row-major. One message carries many rows: never one per sample. */
  values: z.instanceof(Float32Array),
  rateHz: z.number().positive(),
});
export type StreamBatch = z.infer<typeof StreamBatch>;

export const events = {
  'stream.batch': StreamBatch,
  'stream.info': StreamInfo,
  /** At most a few times a second per stream. */
  'stream.stats': StreamStats,
  'stream.state': z.object({
    sourceId: z.string(),
    state: z.enum(['started', 'stopped', 'error']),
    error: WireError.optional(),
  }),
  'sources.changed': z.array(Source),
  'settings.changed': Settings,
  'queue.changed': QueueStatus,
  /** Which samples changed (state, label, added, deleted): the UI refetches what it shows. */
  'samples.changed': z.object({ ids: z.array(z.string()) }),
  'record.state': RecordingStatus,
  'at.progress': AtProgress,
  /** A watched folder could not import a file (vanished, unreadable, too big). */
  'watch.error': z.object({ folderId: z.string(), path: z.string(), message: z.string() }),
  /** Progress of a split or export job, a few times a second, then once with its final state. */
  'samples.progress': JobProgress,
  'audio.levels': AudioLevels,
  /** A source's platform connection changed (state, a sample request's progress, its name). */
  'remote.changed': RemoteDevice,
  /** A sample being classified on the platform, and its result (see ClassifyState). */
  'samples.classifyState': ClassifyState,
  /** A live model's verdicts, batched (at most ~20 batches a second per source). */
  'model.verdicts': ModelVerdictBatch,
  /** A live model started, stopped, failed, caught a sample, or its counts moved (at most ~4 a second). */
  'model.live': LiveModelStatus,
  'models.changed': z.array(ModelEntry),
  /** Sent by the desktop app's Help menu (not by the core): show the keyboard shortcuts or the diagnostics. */
  'app.showHelp': z.object({ panel: z.enum(['shortcuts', 'diagnostics']) }),
} as const;

// ---------- derived types (the renderer imports only these) ----------

export type Methods = typeof methods;
export type MethodName = keyof Methods;
export type MethodInput<M extends MethodName> = z.input<Methods[M]['input']>;
export type MethodOutput<M extends MethodName> = z.output<Methods[M]['output']>;
export type Events = typeof events;
export type EventName = keyof Events;
export type EventPayload<E extends EventName> = z.output<Events[E]>;

/** What every binding returns for a call: never a thrown transport error for a core failure. */
export type CallResult<T = unknown> = { ok: true; value: T } | { ok: false; error: WireError };

export function isMethodName(name: unknown): name is MethodName {
  return typeof name === 'string' && Object.hasOwn(methods, name);
}
