/** Messages between the core (model-runner.ts) and a model worker (model-worker.ts). */
import type { Classification, Sample } from '../contract/contract.js';
import type { ModelEntry } from '../contract/model-schema.js';
import type { RawProperties } from './glue.js';

/** A whole sample for a worker to read, decode, window and classify itself (bulk work: model test). */
export interface SampleJob {
  sample: Pick<Sample, 'id' | 'name' | 'kind' | 'label' | 'sha256'>;
  /** Its file (checked against sha256 there), or the bytes the core still holds. */
  source: { path: string } | { bytes: Uint8Array };
  /** The model as the core knows it (axes, rate, window, labels): the fit is checked beside the module. */
  entry: ModelEntry;
  strideMs: number | null;
  threshold: number;
  /**
   * Set to non-zero (Atomics.store) to stop: the worker looks before each window, so a long sample
   * stops within a window of Cancel, not when it is done; the sample is then refused as Cancelled.
   */
  stop?: Int32Array;
}

export type ToModelWorker =
  | { t: 'load'; jsPath: string }
  /** A whole window (or, continuous, one slice): `seq` counts windows handed over, so the worker knows which were skipped. */
  | { t: 'classify'; id: number; values: Float32Array; continuous: boolean; seq: number; count?: number }
  /** Offline: `count` whole windows of `windowFloats` each, end to end (usually in memory shared with the core), classified in order: one message a sample, not a window. */
  | { t: 'classify-batch'; id: number; values: Float32Array; windowFloats: number; count: number }
  | ({ t: 'classify-sample'; id: number } & SampleJob)
  | { t: 'memory'; id: number }
  | { t: 'stop' };

export type FromModelWorker =
  | { t: 'loaded'; properties: RawProperties; startMs: number }
  /** `detail`: the error with its stack frames, for the log (never shown as the sentence). */
  | { t: 'load-failed'; message: string; detail?: string }
  | {
      t: 'result';
      id: number;
      code: number;
      scores: Array<[string, number]>;
      anomaly: number | null;
      ms: number;
      /** Continuous mode after a skipped slice: the module's rolling window still holds old slices, so this answer is not reported. */
      refilling: boolean;
    }
  /** A batch's windows, in order. */
  | { t: 'batch-result'; id: number; results: Array<{ code: number; scores: Array<[string, number]>; anomaly: number | null; ms: number }> }
  /** A sample's result (classify-sample), in the shape the core keeps. */
  | { t: 'sample-result'; id: number; classification: Classification }
  /** The sample could not be classified (too short, another sensor, its file gone or changed, a window the module refused): a CoreError's parts; the module still runs. */
  | { t: 'sample-refused'; id: number; code: string; message: string; details?: unknown }
  /** The module threw (an abort kills its runtime: the worker ends right after). */
  | { t: 'failed'; id: number | null; message: string; detail?: string }
  | { t: 'memory'; id: number; heapBytes: number; rssBytes: number };
