import { DEFAULT_IMPULSE, type EmulatedImpulse } from './classify-model.js';

export type { EmulatedImpulse, EmulatedLearnBlock } from './classify-model.js';

export type Category = 'training' | 'testing' | 'validation' | 'post-processing';
export const CATEGORIES: readonly Category[] = ['training', 'testing', 'validation', 'post-processing'];

export type LabelingMethod = 'single_label' | 'object_detection';

export interface BoundingBox {
  label: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface StructuredLabel {
  label: string;
  startIndex: number;
  endIndex: number;
}

/**
 * Behaviour and project settings. Kept in one mutable object so a test can flip
 * any of them between requests without restarting the server.
 */
export interface IngestionFaults {
  /** The next n requests (any path) answer 500 after their body was read. */
  fail500Next: number;
  /** The next n requests get their socket destroyed without any answer. */
  resetNext: number;
  /** Delay added before every answer, in ms. */
  delayMs: number;
  labelingMethod: LabelingMethod;
  /** When false, /api/validation/files answers 400 (spec: setting must be enabled). */
  validationEnabled: boolean;
  apiKeys: string[];
  projectId: number;
  maxFileBytes: number;
  maxFilesPerRequest: number;
  /** When set, HS256-signed sensor files must carry a valid HMAC made with this key. */
  hmacKey: string | null;
  /** Guard against runaway uploads; not a spec limit. */
  maxBodyBytes: number;
  /** How long start-sampling waits for the device's first answer (the platform's is 10 s); tests shorten it. */
  deviceReplyTimeoutMs: number;
  /** The project's trained impulse that classify/v2 runs (see classify-model.ts); null = none trained yet. */
  impulse: EmulatedImpulse | null;
  /**
   * Above 0, classify/v2 asked for a result it has not computed yet (sample, impulse, variant)
   * starts a classification job and answers `{success: true, id}` (the declared StartJobResponse);
   * GET /api/{projectId}/jobs/{jobId}/status reports that job running until it has been asked
   * this many times, then finished (the value is read at each status request: 0 finishes every
   * running job at its next one). Asked again after that, classify/v2 answers with the results.
   * 0: classify/v2 answers with the results at once.
   */
  classifyJobPolls: number;
  /** Classification jobs finish unsuccessfully (finishedSuccessful false) and compute nothing. */
  classifyJobFails: boolean;
}

export interface IngestionServerOptions extends Partial<IngestionFaults> {
  host?: string;
  port?: number;
}

export interface StoredSample {
  id: number;
  category: Category;
  /** Stored name (may differ from originalName with x-add-date-id). */
  filename: string;
  originalName: string;
  label: string | null;
  metadata: Record<string, string>;
  boundingBoxes: BoundingBox[];
  sha256: string;
  bytes: Buffer;
  contentType: string;
  structuredLabels?: StructuredLabel[];
  /** Length in ms (sensor: values * interval_ms, wav: from header, else 0). */
  totalLengthMs: number;
  /** Sampling frequency for time series, null for images, video, csv, parquet. */
  frequencyHz: number | null;
  added: string;
}

export interface RequestLogEntry {
  method: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  /** Number of multipart parts named data (1 for legacy endpoints, 0 otherwise). */
  fileCount: number;
  bodyBytes: number;
  /** 0 while pending, and for requests whose socket was destroyed by resetNext. */
  status: number;
}

export interface FileResult {
  success: boolean;
  fileName: string;
  sampleId?: number;
  error?: string;
}

export interface FilesResponse {
  success: boolean;
  files: FileResult[];
}

export interface DeviceSensor {
  name: string;
  maxSampleLengthS: number;
  frequencies: number[];
}

/** What the platform remembers of a device that once said a good hello, connected or not. */
export interface DeviceRecord {
  deviceId: string;
  /** Set through the rename endpoint; the platform shows the id until then. */
  name: string | null;
  deviceType: string;
  sensors: DeviceSensor[];
}

/** Body of start-sampling, as the platform hands it to the remote-management service. */
export interface StartSamplingRequest {
  label: string;
  lengthMs: number;
  category: 'training' | 'validation' | 'testing' | 'post-processing';
  intervalMs: number;
  sensor?: string;
  labelColor?: string;
  collectedSampleCount?: number;
  targetSampleCount?: number;
}

/** A classification job classify/v2 started (classifyJobPolls). */
export interface ClassifyJob {
  id: number;
  /** sample/impulse/variant: the result it computes. */
  key: string;
  created: string;
  /** Status requests answered so far. */
  polls: number;
  /** Set once a status request found it done. */
  finished: string | null;
  finishedSuccessful: boolean | null;
}

export type SampleAnswer = { ok: true } | { ok: false; error: string };

/**
 * The remote-management service as the management API sees it. Kept to two calls so the HTTP
 * emulator does not depend on how the WebSocket side is built.
 */
export interface DeviceHub {
  isConnected(deviceId: string): boolean;
  /** Resolves with the device's first answer; rejects when it times out or the device goes away. */
  requestSample(deviceId: string, req: StartSamplingRequest, timeoutMs?: number): Promise<SampleAnswer>;
}

export interface IngestionServer {
  /** Base for both ingestion (url + /api/...) and management (managementUrl + /api/...). */
  url: string;
  managementUrl: string;
  port: number;
  samples: StoredSample[];
  requests: RequestLogEntry[];
  /** The most requests that were being handled at the same moment (clients' concurrency). */
  readonly maxInFlight: number;
  faults: IngestionFaults;
  setFaults(patch: Partial<IngestionFaults>): void;
  /** Devices that ever said a good hello to an attached remote-management service, by id (live). */
  devices: Map<string, DeviceRecord>;
  /** The remote-management service start-sampling talks to; null until one attaches. */
  readonly attachedDevices: DeviceHub | null;
  attachDevices(hub: DeviceHub | null): void;
  /** Classification jobs classify/v2 started, oldest first (live). */
  classifyJobs: ClassifyJob[];
  /** Forgets the results classify/v2 computed (as a retrained impulse would), so jobs start again. */
  forgetClassifications(): void;
  /** Deletes a sample as a person would on the platform; false when there is none with that id. */
  deleteSample(id: number): boolean;
  /**
   * Clears samples and the request log, restores the start-up settings, restarts ids at 1.
   * Devices with a live connection stay known, as they would on the platform.
   */
  reset(): void;
  close(): Promise<void>;
}

export const DEFAULT_FAULTS: Readonly<IngestionFaults> = {
  fail500Next: 0,
  resetNext: 0,
  delayMs: 0,
  labelingMethod: 'single_label',
  validationEnabled: false,
  apiKeys: ['ei_test_key'],
  projectId: 1,
  maxFileBytes: 100 * 1024 * 1024,
  maxFilesPerRequest: 1000,
  hmacKey: null,
  maxBodyBytes: 512 * 1024 * 1024,
  deviceReplyTimeoutMs: 10_000,
  impulse: DEFAULT_IMPULSE,
  classifyJobPolls: 0,
  classifyJobFails: false,
};
