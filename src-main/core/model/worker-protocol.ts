/** Messages between the core (model-runner.ts) and a model worker (model-worker.ts). */
import type { RawProperties } from './glue.js';

export type ToModelWorker =
  | { t: 'load'; jsPath: string }
  /** A whole window (or, continuous, one slice): `seq` counts windows handed over, so the worker knows which were skipped. */
  | { t: 'classify'; id: number; values: Float32Array; continuous: boolean; seq: number; count?: number }
  /** Offline: `count` whole windows of `windowFloats` each, end to end (usually in memory shared with the core), classified in order: one message a sample, not a window. */
  | { t: 'classify-batch'; id: number; values: Float32Array; windowFloats: number; count: number }
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
  /** The module threw (an abort kills its runtime: the worker ends right after). */
  | { t: 'failed'; id: number | null; message: string; detail?: string }
  | { t: 'memory'; id: number; heapBytes: number; rssBytes: number };
