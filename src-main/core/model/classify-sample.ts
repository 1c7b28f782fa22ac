import type { Classification, Sample } from '../contract/contract.js';
import { decodeSampleBytes } from '../review/decoded.js';
import type { SampleStore } from '../samples/sample-store.js';
import { classifyDecodedWith, type LocalClassifyOptions } from './classify-windows.js';
import type { ModelSession } from './model-session.js';

/**
 * Classifies a sample already in the data folder with a local model, window by window at
 * i × stride from the sample's start (stride as live: a quarter window by default), every window
 * whole (the module reads exactly a window). Resampled when the sample's rate differs by more than
 * 1 %. The answer has the platform's result shape, so the review plot's bands, the "Model says"
 * column and filter and the collect-more-of view read it unchanged; `local` says where it came from.
 * (Bulk work reads, decodes and classifies each sample inside the worker instead: SampleJob.)
 */
export async function classifySampleLocally(store: SampleStore, session: ModelSession, sample: Sample, o: LocalClassifyOptions = {}): Promise<Classification> {
  const decoded = decodeSampleBytes(sample, await store.readBytes(sample));
  return classifyDecodedWith(session.entry, (values, floats, n) => session.classifyBatch(values, floats, n), sample, decoded, o);
}

/**
 * A sample in the data folder classified whole inside the session's worker (bulk work, takes as
 * they are saved): read there from its file (checked against its pinned hash) or from the bytes
 * the store still holds, decoded, windowed and classified; only the result comes back.
 */
export function classifyInWorker(store: SampleStore, session: ModelSession, sample: Sample, o: { strideMs: number | null; threshold: number; stop?: Int32Array }): Promise<Classification> {
  const { id, name, kind, label, sha256 } = sample;
  return session.classifySample({ sample: { id, name, kind, label, sha256 }, source: store.sourceOf(sample), entry: session.entry, strideMs: o.strideMs, threshold: o.threshold, ...(o.stop ? { stop: o.stop } : {}) });
}

/**
 * The flag a worker reads before each window of a sample (SampleJob.stop): set by `set()` or when
 * `signal` aborts, seen by the worker at once. `release()` stops following the signal.
 */
export function stopFlag(signal?: AbortSignal): { flag: Int32Array; set(): void; release(): void } {
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const set = (): void => void Atomics.store(flag, 0, 1);
  if (signal?.aborted) set();
  signal?.addEventListener('abort', set, { once: true });
  return { flag, set, release: () => signal?.removeEventListener('abort', set) };
}
