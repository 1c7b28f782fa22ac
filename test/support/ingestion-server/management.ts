import type { Reply, State } from './ingest.js';
import { CATEGORIES } from './types.js';
import type { StoredSample } from './types.js';

const json = (status: number, value: unknown): Reply =>
  ({ status, body: JSON.stringify(value), contentType: 'application/json; charset=utf-8' });

/** Spec, Errors rule 1: management failures are HTTP 200 with success false. */
const failure = (error: string): Reply => json(200, { success: false, error });

export function formatLength(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const total = Math.round(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return [h ? `${h}h` : '', m ? `${m}m` : '', s || (!h && !m) ? `${s}s` : ''].filter(Boolean).join(' ');
}

function datasetSummary(samples: StoredSample[], type: string): Record<string, unknown> {
  const lengths = samples.map((s) => s.totalLengthMs);
  const total = lengths.reduce((a, b) => a + b, 0);
  const freqs = samples.map((s) => s.frequencyHz).filter((f): f is number => f !== null);
  const byLabel = new Map<string, { totalLength: number; dataCount: number }>();
  for (const s of samples) {
    if (s.label === null) continue;
    const e = byLabel.get(s.label) ?? { totalLength: 0, dataCount: 0 };
    e.totalLength += s.totalLengthMs;
    e.dataCount += 1;
    byLabel.set(s.label, e);
  }
  const options = new Map<string, Set<string>>();
  for (const s of samples) {
    for (const [k, v] of Object.entries(s.metadata)) options.set(k, (options.get(k) ?? new Set()).add(v));
  }
  const labels = [...byLabel.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([label, e]) => ({ label, totalLength: e.totalLength, totalLengthStr: formatLength(e.totalLength), dataCount: e.dataCount }));
  return {
    type,
    totalLength: formatLength(total),
    totalLengthNumber: total,
    maxLengthMs: lengths.length ? Math.max(...lengths) : 0,
    minLengthMs: lengths.length ? Math.min(...lengths) : 0,
    minFrequency: freqs.length ? Math.min(...freqs) : 0,
    maxFrequency: freqs.length ? Math.max(...freqs) : 0,
    itemCount: samples.length,
    isTimeseries: freqs.length > 0,
    isFeatures: false,
    metadataFilterOptions: {
      totalCount: samples.length,
      count: samples.filter((s) => Object.keys(s.metadata).length > 0).length,
      optionsList: [...options.entries()].map(([key, set]) => ({ key, options: [...set].sort() })),
    },
    fullLabelCount: labels.length,
    labels,
    changeActionCounts: { insert: 0, update: 0, delete: 0 },
  };
}

export function metadataSummary(state: State): Record<string, unknown> {
  const type = state.faults.labelingMethod === 'object_detection' ? 'bounding-boxes' : 'classes';
  const of = (c: string): StoredSample[] => state.samples.filter((s) => s.category === c);
  return {
    ratio: {
      type: 'split',
      hasValidationCategory: state.faults.validationEnabled,
      count: { training: of('training').length, testing: of('testing').length, validation: of('validation').length },
    },
    labelQueueCount: 0,
    totalItemCount: state.samples.length,
    type,
    training: datasetSummary(of('training'), type),
    testing: datasetSummary(of('testing'), type),
    validation: datasetSummary(of('validation'), type),
    postProcessing: datasetSummary(of('post-processing'), type),
    all: datasetSummary(state.samples, type),
  };
}

/** Paths are relative to the server root, i.e. they include the /v1 prefix. */
export function handleManagement(state: State, method: string, path: string, headers: Record<string, string | undefined>, body: Buffer): Reply {
  const key = headers['x-api-key'];
  if (!key || !state.faults.apiKeys.includes(key)) return json(401, { success: false, error: 'Missing or invalid x-api-key' });

  const meta = /^\/v1\/api\/([^/]+)\/raw-data\/project-metadata$/.exec(path);
  const move = /^\/v1\/api\/([^/]+)\/raw-data\/([^/]+)\/move$/.exec(path);
  const projectId = (meta ?? move)?.[1];
  if (projectId === undefined) return json(404, { success: false, error: `Unknown endpoint ${method} ${path}` });
  if (meta && method !== 'GET' || move && method !== 'POST') {
    return json(405, { success: false, error: `Method ${method} not allowed on ${path}` });
  }
  if (projectId !== String(state.faults.projectId)) return failure('Project not found');

  if (meta) return json(200, { success: true, metadata: metadataSummary(state) });

  const sampleId = move?.[2] ?? '';
  const sample = /^\d+$/.test(sampleId) ? state.samples.find((s) => s.id === Number(sampleId)) : undefined;
  if (!sample) return failure('Sample not found');
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return failure('Request body is not valid JSON');
  }
  const wanted = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>)['newCategory'] : undefined;
  if (wanted === undefined) return failure('newCategory is required (training, testing, validation or post-processing)');
  const category = CATEGORIES.find((c) => c === wanted);
  if (!category) return failure(`Invalid newCategory ${JSON.stringify(wanted)}: expected training, testing, validation or post-processing`);
  sample.category = category;
  return json(200, { success: true });
}
