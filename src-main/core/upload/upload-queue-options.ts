import type { QueueStatus } from '../contract/contract.js';
import type { SampleStore } from '../samples/sample-store.js';
import type { Logger } from '../log.js';
import type { IngestionTarget } from './ingestion-client.js';
import type { OthersInFlight } from './others-in-flight.js';

/** What an UploadQueue is built with: its own file, so upload-queue.ts holds the queue's behaviour only. */
export interface UploadQueueOptions {
  store: SampleStore;
  log: Logger;
  /** Where to and with which key; asked per batch so a new key or URL applies at once. */
  target(): Promise<IngestionTarget>;
  concurrency?: number;
  /** Attempts before a sample is marked failed; the app retries for ever (offline laptops), the CLI gives up. */
  maxAttempts?: number;
  backoff?: { baseMs: number; maxMs: number };
  maxFilesPerRequest?: number;
  maxBytesPerRequest?: number;
  now?: () => number;
  random?: () => number;
  /** How often to try again while the data folder's disk refuses writes (full, read-only). */
  storageRetryMs?: number;
  /** What ends such a pause, said to the user; the app's queue resumes by itself, a CLI run is run again. */
  storageResumeHint?: string;
  /** What to do about a refused key, said to the user (a CLI run: its flags); the app's default names Settings and Resume. */
  keyRefusedHint?: string;
  /** The platform stored these samples for this queue (not a copy it refused as already there). */
  onStored?: (ids: string[]) => void;
  /**
   * Something changed. The status is a function: counting samples by state is a scan of the
   * index, which a listener that draws a few times a second should not pay for on every batch.
   */
  onChange?: (status: () => QueueStatus, changedIds: string[]) => void;
  /**
   * A one-shot run (the CLI) stops waiting for samples another process has in flight once nobody
   * can be answering for them any more; the app, which runs on, waits (and sends them after a restart).
   */
  othersInFlight?: OthersInFlight;
}
