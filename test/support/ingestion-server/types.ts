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
  /** Clears samples and the request log, restores the start-up settings, restarts ids at 1. */
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
};
