import type { Reply, State } from './ingest.js';
import { seriesOf, type Series } from './classify-data.js';
import { classifySeries, mismatch, type EmulatedImpulse } from './classify-model.js';
import type { StoredSample } from './types.js';

/**
 * POST /api/{projectId}/classify/v2/{sampleId} (spec: Classification and testing). The model is
 * the one in classify-model.ts; the faults `impulse` (null = none trained yet) and
 * `classifyJobRunning` (the next n calls find a job still running) give the error cases.
 */

const json = (value: unknown): Reply => ({ status: 200, body: JSON.stringify(value), contentType: 'application/json; charset=utf-8' });
/** Spec, Errors rule 1: management failures are HTTP 200 with success false. */
const failure = (error: string): Reply => json({ success: false, error });

/** Rows of the sample put in the wrapper's payload; totalPayloadLength says how many there are. */
const PAYLOAD_ROWS = 10_000;
/** The spec names a third, accelerator-specific variant without naming it; the emulator knows the two it names. */
const VARIANTS = ['int8', 'float32'];

function queryOf(query: string): URLSearchParams {
  return new URLSearchParams(query.startsWith('?') ? query.slice(1) : query);
}

export function classifySample(state: State, [, sampleId = '']: string[], query: string): Reply {
  const q = queryOf(query);
  const variant = q.get('variant') ?? 'int8';
  if (!VARIANTS.includes(variant)) return failure(`Invalid variant "${variant}" (expected int8 or float32)`);
  const impulseParam = q.get('impulseId');
  if (impulseParam !== null && !/^\d+$/.test(impulseParam)) return failure(`Invalid impulseId "${impulseParam}" (expected an integer)`);
  const sample = /^\d+$/.test(sampleId) ? state.samples.find((s) => s.id === Number(sampleId)) : undefined;
  if (!sample) return failure('Sample not found');
  const impulse = state.faults.impulse;
  if (!impulse) return failure('No trained impulse in this project yet: design and train an impulse first');
  if (impulseParam !== null && Number(impulseParam) !== impulse.id) return failure(`Impulse ${impulseParam} not found`);
  if (state.faults.classifyJobRunning > 0) {
    state.faults.classifyJobRunning--;
    return failure(`A classification job for this sample is still running (job ${state.nextClassifyJobId++}); try again in a few seconds`);
  }
  const series = seriesOf(sample);
  const why = mismatch(series, impulse);
  if (why || !series) return failure(why ?? 'The impulse cannot classify this sample');

  const key = `${sample.id}/${impulse.id}/${variant}`;
  const alreadyInDatabase = state.classified.has(key);
  state.classified.add(key);
  const results = classifySeries(series, impulse, variant);
  return json({
    success: true,
    classifications: impulse.learnBlocks.map((block, i) => ({
      learnBlock: { id: block.id, name: block.name, dsp: [2], title: block.title, createdBy: 'createImpulse', createdAt: '2024-01-01T00:00:00.000Z' },
      result: results[i],
      minimumConfidenceRating: impulse.minimumConfidenceRating,
      expectedLabels: expectedLabels(sample, series),
      thresholds: [{
        key: 'minScore', description: 'Minimum confidence rating', helpText: 'Windows scoring below this are uncertain',
        value: impulse.minimumConfidenceRating, suggestedValue: impulse.minimumConfidenceRating,
      }],
      intervalMs: series.intervalMs,
      frequencyHz: 1000 / series.intervalMs,
      isMultiLabel: false,
    })),
    sample: wrapper(state, sample, series),
    windowSizeMs: impulse.windowSizeMs,
    windowIncreaseMs: impulse.windowIncreaseMs,
    alreadyInDatabase,
    ...(impulse.warning ? { warning: impulse.warning } : {}),
  });
}

function expectedLabels(sample: StoredSample, series: Series): Array<{ label: string; startIndex: number; endIndex: number }> {
  if (sample.structuredLabels) return sample.structuredLabels;
  return sample.label === null ? [] : [{ label: sample.label, startIndex: 0, endIndex: Math.max(0, series.rows - 1) }];
}

/** Spec: "Sample detail wrapper (in classify response)". */
function wrapper(state: State, s: StoredSample, series: Series): Record<string, unknown> {
  const values = series.payloadRows(PAYLOAD_ROWS);
  const frequency = 1000 / series.intervalMs;
  return {
    sample: {
      id: s.id,
      filename: s.filename,
      signatureValidate: series.signatureMethod !== null,
      ...(series.signatureMethod ? { signatureMethod: series.signatureMethod } : {}),
      created: s.added,
      lastModified: s.added,
      added: s.added,
      category: s.category,
      coldstorageFilename: `${s.sha256}.${series.kind === 'audio' ? 'wav' : 'cbor'}`,
      label: s.label ?? '',
      intervalMs: series.intervalMs,
      frequency,
      originalIntervalMs: series.intervalMs,
      originalFrequency: frequency,
      deviceType: series.deviceType,
      deviceName: series.deviceName,
      sensors: series.axes.map((a, index) => ({ index, name: a.name, units: a.units })),
      valuesCount: series.axes.length,
      boundingBoxes: s.boundingBoxes,
      isDisabled: false,
      isProcessing: false,
      processingError: false,
      isCropped: false,
      projectId: state.faults.projectId,
      sha256Hash: s.sha256,
      totalLengthMs: series.rows * series.intervalMs,
      metadata: s.metadata,
      ...(s.structuredLabels ? { structuredLabels: s.structuredLabels, structuredLabelsList: [...new Set(s.structuredLabels.map((l) => l.label))] } : {}),
    },
    payload: {
      device_type: series.deviceType,
      sensors: series.axes,
      values,
      intervalMs: series.intervalMs,
      frequencyHz: frequency,
      device_name: series.deviceName,
      cropStart: 0,
      cropEnd: values.length,
    },
    totalPayloadLength: series.rows,
    datastreamPayloads: [],
  };
}

export type { EmulatedImpulse };
