import { classifyJobStatus, classifySample } from './classify.js';
import type { Reply, State } from './ingest.js';
import { CATEGORIES } from './types.js';
import type { StartSamplingRequest, StoredSample } from './types.js';

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

type Params = string[];

interface Route {
  pattern: RegExp;
  method: 'GET' | 'POST';
  /** params[0] is the project id, the rest are the path's other captures, URI-decoded; query is '' or '?…'. */
  run(state: State, params: Params, body: Buffer, query: string): Reply | Promise<Reply>;
}

type Parsed = { ok: true; value: Record<string, unknown> } | { ok: false; reply: Reply };

function bodyObject(body: Buffer): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    return { ok: false, reply: failure('Request body is not valid JSON') };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, reply: failure('Request body must be a JSON object') };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

function moveSample(state: State, [, sampleId = '']: Params, body: Buffer): Reply {
  const sample = /^\d+$/.test(sampleId) ? state.samples.find((s) => s.id === Number(sampleId)) : undefined;
  if (!sample) return failure('Sample not found');
  const parsed = bodyObject(body);
  if (!parsed.ok) return parsed.reply;
  const wanted = parsed.value['newCategory'];
  if (wanted === undefined) return failure('newCategory is required (training, testing, validation or post-processing)');
  const category = CATEGORIES.find((c) => c === wanted);
  if (!category) return failure(`Invalid newCategory ${JSON.stringify(wanted)}: expected training, testing, validation or post-processing`);
  sample.category = category;
  return json(200, { success: true });
}

// The platform's published API client declares validation too (edge-impulse-api StartSamplingRequest).
const SAMPLING_CATEGORIES = ['training', 'validation', 'testing', 'post-processing'] as const;

/** A JSON null counts as absent for the optional fields, as most API clients write it that way. */
function samplingRequestFrom(b: Record<string, unknown>): StartSamplingRequest | string {
  const { label, lengthMs, category, intervalMs, sensor, labelColor, collectedSampleCount, targetSampleCount } = b;
  if (typeof label !== 'string' || label === '') return 'label is required (a non-empty string)';
  if (typeof lengthMs !== 'number' || !Number.isInteger(lengthMs) || lengthMs <= 0) return 'lengthMs is required (a positive integer, in ms)';
  const cat = SAMPLING_CATEGORIES.find((c) => c === category);
  if (!cat) return 'category is required (training, testing or post-processing)';
  if (typeof intervalMs !== 'number' || !Number.isFinite(intervalMs) || intervalMs <= 0) return 'intervalMs is required (a positive number, ms between readings)';
  const req: StartSamplingRequest = { label, lengthMs, category: cat, intervalMs };
  const optional = { sensor, labelColor, collectedSampleCount, targetSampleCount };
  for (const [field, value] of Object.entries(optional)) {
    if (value === undefined || value === null) continue;
    const wantsString = field === 'sensor' || field === 'labelColor';
    if (wantsString ? typeof value !== 'string' : typeof value !== 'number' || !Number.isFinite(value)) {
      return `${field} must be a ${wantsString ? 'string' : 'number'}`;
    }
  }
  if (typeof sensor === 'string') req.sensor = sensor;
  if (typeof labelColor === 'string') req.labelColor = labelColor;
  if (typeof collectedSampleCount === 'number') req.collectedSampleCount = collectedSampleCount;
  if (typeof targetSampleCount === 'number') req.targetSampleCount = targetSampleCount;
  return req;
}

async function startSampling(state: State, [, deviceId = '']: Params, body: Buffer): Promise<Reply> {
  const parsed = bodyObject(body);
  if (!parsed.ok) return parsed.reply;
  const req = samplingRequestFrom(parsed.value);
  if (typeof req === 'string') return failure(req);
  const hub = state.hub;
  if (!hub?.isConnected(deviceId)) return failure(`Device ${deviceId} is not connected`);
  try {
    const answer = await hub.requestSample(deviceId, req, state.faults.deviceReplyTimeoutMs);
    return answer.ok ? json(200, { success: true, id: state.nextSamplingId++ }) : failure(answer.error);
  } catch {
    // Timed out, or the device went away before answering: the caller learns only that it did not answer.
    return failure('Device did not respond');
  }
}

function renameDevice(state: State, [, deviceId = '']: Params, body: Buffer): Reply {
  const device = state.devices.get(deviceId);
  if (!device) return failure('Device not found');
  const parsed = bodyObject(body);
  if (!parsed.ok) return parsed.reply;
  const name = parsed.value['name'];
  if (typeof name !== 'string' || name.trim() === '') return failure('name is required (a non-empty string)');
  device.name = name;
  return json(200, { success: true });
}

function listDevices(state: State): Reply {
  const devices = [...state.devices.values()].map((d) => ({
    deviceId: d.deviceId,
    name: d.name ?? d.deviceId,
    deviceType: d.deviceType,
    remote_mgmt_connected: state.hub?.isConnected(d.deviceId) ?? false,
    sensors: d.sensors,
  }));
  return json(200, { success: true, devices });
}

const ROUTES: Route[] = [
  {
    pattern: /^\/v1\/api\/([^/]+)\/raw-data\/project-metadata$/,
    method: 'GET',
    run: (state) => json(200, { success: true, metadata: metadataSummary(state) }),
  },
  { pattern: /^\/v1\/api\/([^/]+)\/raw-data\/([^/]+)\/move$/, method: 'POST', run: moveSample },
  { pattern: /^\/v1\/api\/([^/]+)\/device\/([^/]+)\/start-sampling$/, method: 'POST', run: startSampling },
  // Spec: the plural "devices" here is not a typo.
  { pattern: /^\/v1\/api\/([^/]+)\/devices\/([^/]+)\/rename$/, method: 'POST', run: renameDevice },
  { pattern: /^\/v1\/api\/([^/]+)\/devices$/, method: 'GET', run: listDevices },
  { pattern: /^\/v1\/api\/([^/]+)\/classify\/v2\/([^/]+)$/, method: 'POST', run: (state, params, _body, query) => classifySample(state, params, query) },
  { pattern: /^\/v1\/api\/([^/]+)\/jobs\/([^/]+)\/status$/, method: 'GET', run: classifyJobStatus },
];

function decodeParams(captures: string[]): Params | null {
  try {
    return captures.map((c) => decodeURIComponent(c));
  } catch {
    return null;
  }
}

/** Paths are relative to the server root, i.e. they include the /v1 prefix. */
export function handleManagement(
  state: State, method: string, path: string, headers: Record<string, string | undefined>, body: Buffer, query = '',
): Reply | Promise<Reply> {
  const key = headers['x-api-key'];
  if (!key || !state.faults.apiKeys.includes(key)) return json(401, { success: false, error: 'Missing or invalid x-api-key' });

  for (const route of ROUTES) {
    const match = route.pattern.exec(path);
    if (!match) continue;
    if (method !== route.method) return json(405, { success: false, error: `Method ${method} not allowed on ${path}` });
    const params = decodeParams(match.slice(1));
    if (!params) return failure(`Malformed path ${path}`);
    if (params[0] !== String(state.faults.projectId)) return failure('Project not found');
    return route.run(state, params, body, query);
  }
  return json(404, { success: false, error: `Unknown endpoint ${method} ${path}` });
}
