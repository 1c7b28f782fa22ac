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
