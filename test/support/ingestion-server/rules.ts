import type { BoundingBox, StructuredLabel } from './types.js';

/** Raised for request-level problems; the handler answers with this status and text. */
export class RequestError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The spec's ^[a-zA-Z0-9\s-_]+ : JS (without the u flag) reads `\s-_` as
 * whitespace, '-' and '_', which is the evident intent, so spell it out.
 */
export function deriveLabel(fileName: string): string | null {
  const m = /^[a-zA-Z0-9\s\-_]+/.exec(fileName);
  return m ? m[0] : null;
}

export type Headers = Record<string, string | undefined>;

/** Label from headers; null = no label. */
export function labelFromHeaders(headers: Headers, fileName: string): string | null {
  if (headers['x-no-label']?.trim() === '1') return null;
  const explicit = headers['x-label'];
  // An empty x-label is treated as absent, so the name-derived label applies.
  if (explicit !== undefined && explicit !== '') return explicit;
  return deriveLabel(fileName);
}

export function isEnabledFlag(value: string | undefined): boolean {
  if (value === undefined) return false;
  const v = value.trim().toLowerCase();
  return v !== '' && v !== '0' && v !== 'false' && v !== 'no';
}

export function metadataFromHeader(value: string | undefined): Record<string, string> {
  if (value === undefined || value === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new RequestError(400, 'x-metadata is not valid JSON');
  }
  return metadataObject(parsed, 'x-metadata');
}

function metadataObject(parsed: unknown, source: string): Record<string, string> {
  if (!isObject(parsed)) throw new RequestError(400, `${source} must be a JSON object of key/value pairs`);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(parsed)) {
    if (typeof v === 'string') out[k] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
    else throw new RequestError(400, `${source} value of "${k}" must be a string, number or boolean`);
  }
  return out;
}

export type BoxesResult = { ok: true; boxes: BoundingBox[] } | { ok: false; error: string };

const BOX_PROPS = ['label', 'x', 'y', 'width', 'height'] as const;

/** Spec rule 1 and 5: the first missing (or wrongly typed) property in this order is reported. */
export function validateBoxes(value: unknown, source: string): BoxesResult {
  if (!Array.isArray(value)) return { ok: false, error: `${source} is not a valid array` };
  const boxes: BoundingBox[] = [];
  for (const item of value as unknown[]) {
    const box = isObject(item) ? item : {};
    for (const prop of BOX_PROPS) {
      const v = box[prop];
      const ok = prop === 'label' ? typeof v === 'string' : typeof v === 'number' && Number.isFinite(v);
      if (!ok) return { ok: false, error: `${source} ${prop} is required` };
    }
    boxes.push({
      label: box['label'] as string, x: box['x'] as number, y: box['y'] as number,
      width: box['width'] as number, height: box['height'] as number,
    });
  }
  return { ok: true, boxes };
}

export function boxesFromHeader(value: string): BoxesResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return { ok: false, error: 'x-bounding-boxes is not valid json' };
  }
  return validateBoxes(parsed, 'x-bounding-boxes');
}

export type LabelOverride =
  | { type: 'label'; label: string }
  | { type: 'unlabeled' }
  | { type: 'multi-label'; labels: StructuredLabel[] };

export interface FileOverride {
  category?: string;
  label?: LabelOverride;
  metadata?: Record<string, string>;
  /** Raw, validated per file so one bad entry rejects only its file. */
  boundingBoxes?: unknown;
  boundingBoxesSource?: string;
}

/** Per-file overrides keyed by base name; info.labels and bounding_boxes.labels merge into one map. */
export type Overrides = Map<string, FileOverride>;

export function baseName(path: string): string {
  return path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
}

export function addLabelsFile(into: Overrides, fileName: string, bytes: Buffer): void {
  const fail = (why: string): never => {
    throw new RequestError(400, `${fileName}: ${why}`);
  };
  let doc: unknown;
  try {
    doc = JSON.parse(bytes.toString('utf8'));
  } catch {
    return fail('not valid JSON');
  }
  if (!isObject(doc)) return fail('expected a JSON object');
  if (doc['version'] !== 1) fail('unsupported version (expected 1)');
  const entry = (name: string): FileOverride => {
    const key = baseName(name);
    const found = into.get(key) ?? {};
    into.set(key, found);
    return found;
  };
  if (doc['boundingBoxes'] !== undefined && !Array.isArray(doc['files'])) {
    // The platform's object detection format: {"version":1,"type":"bounding-box-labels","boundingBoxes":{"a.jpg":[...]}}.
    if (doc['type'] !== 'bounding-box-labels') fail('type must be "bounding-box-labels"');
    if (!isObject(doc['boundingBoxes'])) fail('boundingBoxes must be an object of file name to boxes');
    for (const [name, boxes] of Object.entries(doc['boundingBoxes'] as Record<string, unknown>)) {
      Object.assign(entry(name), { boundingBoxes: boxes, boundingBoxesSource: `${fileName} boundingBoxes` });
    }
    return;
  }
  const files = doc['files'];
  if (!Array.isArray(files)) return fail('expected a files array or a boundingBoxes object');
  files.forEach((f: unknown, i) => {
    if (!isObject(f) || typeof f['path'] !== 'string') return fail(`files[${i}].path must be a string`);
    const target = entry(f['path']);
    if (f['category'] !== undefined) {
      if (typeof f['category'] !== 'string') fail(`files[${i}].category must be a string`);
      target.category = f['category'] as string;
    }
    if (f['label'] !== undefined) target.label = labelOverride(f['label'], `files[${i}].label`, fail);
    if (f['metadata'] !== undefined) target.metadata = metadataObject(f['metadata'], `${fileName} files[${i}].metadata`);
    // bounding_boxes.labels wins over info.labels boxes (spec rule 3 names it explicitly).
    if (f['boundingBoxes'] !== undefined && target.boundingBoxesSource === undefined) {
      target.boundingBoxes = f['boundingBoxes'];
      target.boundingBoxesSource = `${fileName} boundingBoxes`;
    }
  });
}

function labelOverride(v: unknown, where: string, fail: (why: string) => never): LabelOverride {
  if (!isObject(v)) return fail(`${where} must be an object`);
  if (v['type'] === 'unlabeled') return { type: 'unlabeled' };
  if (v['type'] === 'label') {
    if (typeof v['label'] !== 'string') return fail(`${where}.label must be a string`);
    return { type: 'label', label: v['label'] };
  }
  if (v['type'] === 'multi-label') {
    const labels = v['labels'];
    if (!Array.isArray(labels)) return fail(`${where}.labels must be an array`);
    return {
      type: 'multi-label',
      labels: labels.map((l: unknown, j) => {
        const ok = isObject(l) && typeof l['label'] === 'string'
          && Number.isInteger(l['startIndex']) && Number.isInteger(l['endIndex']);
        if (!ok) fail(`${where}.labels[${j}] needs label (string), startIndex and endIndex (integers)`);
        const s = l as Record<string, unknown>;
        return { label: s['label'] as string, startIndex: s['startIndex'] as number, endIndex: s['endIndex'] as number };
      }),
    };
  }
  return fail(`${where}.type must be label, unlabeled or multi-label`);
}
