import type { Reply, State } from './ingest.js';
import { seriesOf, type Series } from './classify-data.js';
import { classifySeries, mismatch, type EmulatedImpulse } from './classify-model.js';
import type { ClassifyJob, StoredSample } from './types.js';

/**
 * POST /api/{projectId}/classify/v2/{sampleId} (spec: Classification and testing) and the job it
 * may start, as the platform's published client declares them (edge-impulse-api: classifySampleV2
 * returns `ClassifySampleResponse | StartJobResponse`; "If you receive a job, then wait for the
 * completion of the job, and then call this function again to receive the results"; getJobStatus
 * is GET /api/{projectId}/jobs/{jobId}/status → GetJobResponse {job: {id, …, finished?,
 * finishedSuccessful?}}). The model is the one in classify-model.ts; the faults `impulse` (null =
 * none trained yet), `classifyJobPolls` and `classifyJobFails` give the other cases.
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
  const series = seriesOf(sample);
  const why = mismatch(series, impulse);
  if (why || !series) return failure(why ?? 'The impulse cannot classify this sample');

  const key = `${sample.id}/${impulse.id}/${variant}`;
  if (!state.classified.has(key)) {
    if (state.faults.classifyJobPolls > 0) {
      // Nothing declares what a second call does while the first job runs: it starts another,
      // so a client that asks again on a timer shows up in classifyJobs.
      const job: ClassifyJob = { id: state.classifyJobs.length + 1, key, created: new Date().toISOString(), polls: 0, finished: null, finishedSuccessful: null };
      state.classifyJobs.push(job);
      return json({ success: true, id: job.id });
    }
    state.classified.add(key);
  }
  // Declared: "Whether this sample is already in the training database".
  const alreadyInDatabase = sample.category === 'training';
  const results = classifySeries(series, impulse, variant);
  return json({
    success: true,
    classifications: impulse.learnBlocks.map((block, i) => ({
      learnBlock: { id: block.id, type: block.type ?? 'keras', name: block.name, dsp: [2], title: block.title, createdBy: 'createImpulse', createdAt: '2024-01-01T00:00:00.000Z' },
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

/**
 * GET /api/{projectId}/jobs/{jobId}/status (declared GetJobResponse). A classification job runs
 * until it has been asked about `classifyJobPolls` times, then finishes: its result is computed
 * (classify/v2 answers it at once from then on) unless `classifyJobFails`.
 */
export function classifyJobStatus(state: State, [, jobId = '']: string[]): Reply {
  const job = /^\d+$/.test(jobId) ? state.classifyJobs.find((j) => j.id === Number(jobId)) : undefined;
  if (!job) return failure(`Job ${jobId} not found`);
  job.polls++;
  if (job.finished === null && job.polls > state.faults.classifyJobPolls) {
    job.finished = new Date().toISOString();
    job.finishedSuccessful = !state.faults.classifyJobFails;
    if (job.finishedSuccessful) state.classified.add(job.key);
  }
  return json({
    success: true,
    job: {
      id: job.id,
      category: 'Classifying sample',
      categoryKey: 'classify-sample',
      key: `classify-${job.key}`,
      created: job.created,
      started: job.created,
      ...(job.finished === null ? {} : { finished: job.finished, finishedSuccessful: job.finishedSuccessful }),
      jobNotificationUids: [],
    },
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
