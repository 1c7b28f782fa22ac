import { createHash, randomBytes } from 'node:crypto';
import { ACCEPTED_EXTENSIONS, ContentError, extensionOf, inspectContent, kindOf } from './acquisition.js';
import type { FileKind } from './acquisition.js';
import { MultipartError, boundaryOf, parseMultipart } from './multipart.js';
import {
  RequestError, addLabelsFile, baseName, boxesFromHeader, isEnabledFlag, labelFromHeaders,
  metadataFromHeader, validateBoxes,
} from './rules.js';
import type { BoxesResult, FileOverride, Headers, Overrides } from './rules.js';
import { CATEGORIES } from './types.js';
import type {
  BoundingBox, Category, ClassifyJob, DeviceHub, DeviceRecord, FileResult, IngestionFaults, StoredSample, StructuredLabel,
} from './types.js';

export interface State {
  faults: IngestionFaults;
  samples: StoredSample[];
  nextId: number;
  devices: Map<string, DeviceRecord>;
  hub: DeviceHub | null;
  /** Ids of accepted start-sampling calls; separate from sample ids, as on the platform. */
  nextSamplingId: number;
  /** sample/impulse/variant whose results classify/v2 has computed (answered at once from then on). */
  classified: Set<string>;
  /** The classification jobs classify/v2 started (classifyJobPolls); ids from 1. */
  classifyJobs: ClassifyJob[];
}

export interface Reply {
  status: number;
  body: string;
  contentType: string;
}

export const text = (status: number, body: string): Reply =>
  ({ status, body, contentType: 'text/plain; charset=utf-8' });

interface Directives {
  headers: Headers;
  metadata: Record<string, string>;
  addDateId: boolean;
  disallowDuplicates: boolean;
  /** Parsed once: spec rule 3 applies the same header value to every file. */
  boxesHeader: BoxesResult | null;
}

function directivesFrom(headers: Headers): Directives {
  const boxes = headers['x-bounding-boxes'];
  return {
    headers,
    metadata: metadataFromHeader(headers['x-metadata']),
    addDateId: headers['x-add-date-id']?.trim() === '1',
    disallowDuplicates: isEnabledFlag(headers['x-disallow-duplicates']),
    boxesHeader: boxes === undefined ? null : boxesFromHeader(boxes),
  };
}

interface Candidate {
  originalName: string;
  bytes: Buffer;
  contentType: string;
  kind: FileKind;
  category: Category | 'split';
  override: FileOverride | undefined;
}

type Outcome = { ok: true; sample: StoredSample } | { ok: false; error: string };

function resolveCategory(state: State, c: Candidate, sha256: string): { category: Category } | { error: string } {
  const wanted = c.override?.category ?? c.category;
  // Deterministic 80/20 so tests can predict where a given file lands.
  if (wanted === 'split') return { category: parseInt(sha256.slice(0, 8), 16) % 100 < 80 ? 'training' : 'testing' };
  const known = CATEGORIES.find((k) => k === wanted);
  if (!known) return { error: `invalid category "${wanted}" (expected training, testing, validation or post-processing)` };
  if (known === 'validation' && !state.faults.validationEnabled) {
    return { error: 'the validation set is not enabled for this project' };
  }
  return { category: known };
}

function ingestOne(state: State, d: Directives, c: Candidate): Outcome {
  const f = state.faults;
  if (c.bytes.length > f.maxFileBytes) {
    return { ok: false, error: `file too large: ${c.bytes.length} bytes (limit ${f.maxFileBytes} bytes)` };
  }
  let info;
  try {
    info = inspectContent(c.kind, c.bytes, f.hmacKey);
  } catch (e) {
    if (e instanceof ContentError) return { ok: false, error: e.message };
    throw e;
  }
  const sha256 = createHash('sha256').update(c.bytes).digest('hex');
  const resolved = resolveCategory(state, c, sha256);
  if ('error' in resolved) return { ok: false, error: resolved.error };

  const name = baseName(c.originalName);
  let label: string | null;
  let structuredLabels: StructuredLabel[] | undefined;
  const lo = c.override?.label;
  if (lo === undefined) label = labelFromHeaders(d.headers, name);
  else if (lo.type === 'label') label = lo.label;
  else {
    label = null;
    if (lo.type === 'multi-label') structuredLabels = lo.labels;
  }

  let boundingBoxes: BoundingBox[] = [];
  // Spec rule 2: single-label projects discard boxes silently, without validating them. Boxes are
  // an annotation of images only ("labels and object detection for images"): a sensor, audio or
  // video file in the same request is stored without them, as in a single-label project.
  if (f.labelingMethod === 'object_detection' && (c.kind === 'jpg' || c.kind === 'png')) {
    const ov = c.override;
    const result = ov?.boundingBoxes !== undefined
      ? validateBoxes(ov.boundingBoxes, ov.boundingBoxesSource ?? 'boundingBoxes')
      : d.boxesHeader;
    if (result && !result.ok) return { ok: false, error: result.error };
    if (result) boundingBoxes = result.boxes;
  }

  if (d.disallowDuplicates) {
    const dup = hashIndex(state.samples).get(sha256);
    if (dup) return { ok: false, error: `An item with this hash already exists (ID ${dup.id})` };
  }

  const sample: StoredSample = {
    id: state.nextId++,
    category: resolved.category,
    filename: d.addDateId ? uniqueName(state, name) : name,
    originalName: c.originalName,
    label,
    metadata: c.override?.metadata ?? d.metadata,
    boundingBoxes,
    sha256,
    bytes: c.bytes,
    contentType: c.contentType,
    totalLengthMs: info.totalLengthMs,
    frequencyHz: info.frequencyHz,
    added: new Date().toISOString(),
  };
  if (structuredLabels) sample.structuredLabels = structuredLabels;
  state.samples.push(sample);
  return { ok: true, sample };
}

function uniqueName(state: State, name: string): string {
  const stem = extensionOf(name) === '' ? name : name.slice(0, name.lastIndexOf('.'));
  for (;;) {
    const candidate = `${stem}.${randomBytes(8).toString('hex')}`;
    if (!state.samples.some((s) => s.filename === candidate)) return candidate;
  }
}

export function handleFiles(
  state: State, endpoint: Category | 'split', headers: Headers, body: Buffer, onFileCount: (n: number) => void,
): Reply {
  const f = state.faults;
  if (endpoint === 'validation' && !f.validationEnabled) {
    return text(400, 'The validation set is not enabled for this project; enable the explicit validation set in the advanced project settings');
  }
  const contentType = headers['content-type'];
  if (!contentType) return text(421, 'Missing header Content-Type');
  if (!/^multipart\/form-data\s*(;|$)/i.test(contentType)) {
    return text(400, `Invalid Content-Type "${contentType}": the files endpoints expect multipart/form-data`);
  }
  const boundary = boundaryOf(contentType);
  if (!boundary) return text(400, 'Content-Type multipart/form-data lacks a valid boundary parameter');
  const d = directivesFrom(headers);
  let parts;
  try {
    parts = parseMultipart(body, boundary);
  } catch (e) {
    if (e instanceof MultipartError) return text(400, e.message);
    throw e;
  }
  const dataParts = parts.filter((p) => p.name === 'data');
  onFileCount(dataParts.length);
  if (dataParts.length > f.maxFilesPerRequest) {
    return text(400, `Too many files in one request: ${dataParts.length} (limit ${f.maxFilesPerRequest})`);
  }
  const isLabels = (n: string | null): boolean => n !== null && kindOf(n) === 'labels';
  const overrides: Overrides = new Map();
  for (const p of parts) if (isLabels(p.filename)) addLabelsFile(overrides, p.filename ?? '', p.data);
  const sampleParts = dataParts.filter((p) => !isLabels(p.filename));
  if (sampleParts.length === 0) return text(400, 'No files in request: expected one or more form parts named "data"');

  const files: FileResult[] = sampleParts.map((p) => {
    const fileName = p.filename ?? '';
    if (fileName === '') return { success: false, fileName, error: 'missing file name' };
    const kind = kindOf(fileName);
    if (kind === null) {
      const ext = extensionOf(fileName) || '(none)';
      return { success: false, fileName, error: `unsupported file type ${ext} (accepted: ${ACCEPTED_EXTENSIONS.join(', ')})` };
    }
    const out = ingestOne(state, d, {
      originalName: fileName, bytes: p.data, contentType: p.contentType ?? 'application/octet-stream',
      kind, category: endpoint, override: overrides.get(baseName(fileName)),
    });
    return out.ok ? { success: true, fileName, sampleId: out.sample.id } : { success: false, fileName, error: out.error };
  });
  return text(200, JSON.stringify({ success: files.every((r) => r.success), files }));
}

export function handleLegacy(state: State, endpoint: 'training' | 'testing' | 'anomaly', headers: Headers, body: Buffer): Reply {
  const fileName = headers['x-file-name'];
  if (!fileName) return text(421, 'Missing header x-file-name');
  const contentType = headers['content-type'];
  if (!contentType) return text(421, 'Missing header Content-Type');
  const media = contentType.split(';')[0]?.trim().toLowerCase();
  if (media !== 'application/json' && media !== 'application/cbor') {
    return text(400, `Unsupported Content-Type "${contentType}": expected application/json or application/cbor`);
  }
  const d = directivesFrom(headers);
  const out = ingestOne(state, d, {
    originalName: fileName, bytes: body, contentType: media, kind: media === 'application/json' ? 'json' : 'cbor',
    // Categories only know four sets; anomaly uploads land in testing.
    category: endpoint === 'anomaly' ? 'testing' : endpoint, override: undefined,
  });
  return out.ok ? text(200, out.sample.filename) : text(400, out.error);
}

export { RequestError };

/**
 * The platform looks duplicates up by hash in an index, not by scanning: a linear scan would make
 * big benchmark uploads measure this emulator instead of the client. Rebuilt when the sample list
 * was changed from outside (reset), kept up to date as samples are appended.
 */
const indexes = new WeakMap<StoredSample[], { seen: number; byHash: Map<string, StoredSample> }>();
function hashIndex(samples: StoredSample[]): Map<string, StoredSample> {
  let ix = indexes.get(samples);
  if (!ix || ix.seen > samples.length) indexes.set(samples, (ix = { seen: 0, byHash: new Map() }));
  for (; ix.seen < samples.length; ix.seen++) {
    const s = samples[ix.seen]!;
    if (!ix.byHash.has(s.sha256)) ix.byHash.set(s.sha256, s);
  }
  return ix.byHash;
}
