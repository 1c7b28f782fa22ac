import { z } from 'zod';
import { CoreError } from '../../errors.js';
import type { BoundingBox } from './bounding-boxes.js';

/**
 * The platform's `info.labels` file: what its exporter writes next to the samples and its
 * uploader reads to set category, label, metadata and bounding boxes per file.
 *
 * Structured labels: startIndex and endIndex are sample (row) indices and endIndex is
 * INCLUSIVE, as in the platform's own examples (0..451 then 452..1847). A label covering a
 * whole 100-row sample is {startIndex: 0, endIndex: 99}.
 */

export interface StructuredLabel {
  label: string;
  startIndex: number;
  /** Inclusive. */
  endIndex: number;
}

export type InfoLabel =
  | { type: 'label'; label: string }
  | { type: 'unlabeled' }
  | { type: 'multi-label'; labels: StructuredLabel[] };

/** `split` asks the service to place the file by the project's split percentages. */
export type InfoLabelsCategory = 'training' | 'validation' | 'testing' | 'post-processing' | 'split';

export interface InfoLabelsEntry {
  /** Relative to the info.labels file, with '/' separators, e.g. training/idle.01.cbor. */
  path: string;
  name?: string;
  category: InfoLabelsCategory;
  /** Absent: the service derives the label from the file name. */
  label?: InfoLabel;
  metadata?: Record<string, string>;
  boundingBoxes?: BoundingBox[];
}

export interface InfoLabelsFile {
  version: 1;
  files: InfoLabelsEntry[];
}

const StructuredLabelSchema = z.object({
  label: z.string().min(1, 'must not be empty'),
  startIndex: z.int('must be a whole sample index').nonnegative('must not be negative'),
  endIndex: z.int('must be a whole sample index').nonnegative('must not be negative'),
});

const LabelSchema = z.discriminatedUnion(
  'type',
  [
    z.object({ type: z.literal('label'), label: z.string().min(1, 'must not be empty (use {"type":"unlabeled"})') }),
    z.object({ type: z.literal('unlabeled') }),
    z.object({ type: z.literal('multi-label'), labels: z.array(StructuredLabelSchema).min(1, 'must hold at least one range') }),
  ],
  { error: 'must be {"type":"label","label":...}, {"type":"unlabeled"} or {"type":"multi-label","labels":[...]}' },
);

const BoxSchema = z.object({
  label: z.string(),
  x: z.number(),
  y: z.number(),
  width: z.number(),
  height: z.number(),
});

const EntrySchema = z.object({
  path: z.string().min(1, 'must not be empty'),
  name: z.string().optional(),
  category: z.enum(['training', 'validation', 'testing', 'post-processing', 'split']),
  label: LabelSchema.optional(),
  // Other tools write numbers and booleans; the platform stores metadata values as strings.
  metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()], 'must be a string').transform(String)).optional(),
  boundingBoxes: z.array(BoxSchema).optional(),
});

const InfoLabelsSchema = z
  .object({
    version: z.literal(1, 'must be 1 (the only version the platform writes)'),
    files: z.array(EntrySchema),
  })
  .superRefine((doc, ctx) => {
    const firstIndex = new Map<string, number>();
    doc.files.forEach((f, i) => {
      const earlier = firstIndex.get(f.path);
      if (earlier !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['files', i, 'path'], message: `"${f.path}" is already listed as files[${earlier}]; list each file once` });
      } else firstIndex.set(f.path, i);
      if (f.label?.type === 'multi-label') checkRanges(f.label.labels, ['files', i, 'label', 'labels'], ctx);
    });
  });

/** Each range must be non-empty and no two may overlap (a sample index has one label). */
function checkRanges(labels: StructuredLabel[], path: (string | number)[], ctx: z.RefinementCtx): void {
  labels.forEach((l, j) => {
    if (l.endIndex < l.startIndex) {
      ctx.addIssue({ code: 'custom', path: [...path, j, 'endIndex'], message: `${l.endIndex} is before startIndex ${l.startIndex} (endIndex is inclusive)` });
    }
  });
  const order = labels.map((l, j) => ({ ...l, j })).sort((a, b) => a.startIndex - b.startIndex);
  for (let k = 1; k < order.length; k++) {
    const prev = order[k - 1];
    const cur = order[k];
    if (prev && cur && cur.startIndex <= prev.endIndex) {
      ctx.addIssue({
        code: 'custom',
        path: [...path, cur.j, 'startIndex'],
        message: `${cur.startIndex} overlaps labels[${prev.j}] (${prev.startIndex}..${prev.endIndex}, inclusive); ranges must not overlap`,
      });
    }
  }
}

function pathText(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');
}

const CATEGORIES: ReadonlySet<string> = new Set(['training', 'validation', 'testing', 'post-processing', 'split']);

/**
 * The shape the platform's exporter writes (path, category, a plain label or unlabeled, string
 * metadata), checked by hand: the schema costs ~20 µs an entry, and an export holds tens of
 * thousands. Gives what the schema would give, or null when anything is less plain (boxes,
 * structured labels, an odd value): the schema then checks it and says what is wrong.
 */
function plainFile(doc: unknown): InfoLabelsFile | null {
  if (!isObject(doc) || doc['version'] !== 1 || !Array.isArray(doc['files'])) return null;
  const listed = doc['files'] as unknown[];
  const seen = new Set<string>();
  const files: InfoLabelsEntry[] = new Array(listed.length);
  for (let i = 0; i < listed.length; i++) {
    const e = listed[i];
    if (!isObject(e)) return null;
    const { path, name, category, label, metadata, boundingBoxes } = e;
    if (typeof path !== 'string' || path.length === 0 || seen.has(path)) return null;
    seen.add(path);
    if ((name !== undefined && typeof name !== 'string') || typeof category !== 'string' || !CATEGORIES.has(category) || boundingBoxes !== undefined) return null;
    // Keys in the schema's order, so what buildInfoLabels writes is the same either way.
    const entry: InfoLabelsEntry = name === undefined ? { path, category: category as InfoLabelsCategory } : { path, name: name as string, category: category as InfoLabelsCategory };
    if (label !== undefined) {
      if (!isObject(label)) return null;
      if (label['type'] === 'unlabeled') entry.label = { type: 'unlabeled' };
      else if (label['type'] === 'label' && typeof label['label'] === 'string' && label['label'].length > 0) entry.label = { type: 'label', label: label['label'] };
      else return null;
    }
    if (metadata !== undefined) {
      if (!isObject(metadata)) return null;
      const m: Record<string, string> = {};
      for (const [k, v] of Object.entries(metadata)) {
        if (typeof v === 'string') m[k] = v;
        else if (typeof v === 'number' || typeof v === 'boolean') m[k] = String(v);
        else return null;
      }
      entry.metadata = m;
    }
    files[i] = entry;
  }
  return { version: 1, files };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function validate(doc: unknown, what: string): InfoLabelsFile {
  const plain = plainFile(doc);
  if (plain) return plain;
  const result = InfoLabelsSchema.safeParse(doc);
  if (result.success) {
    const parsed: InfoLabelsFile = result.data; // the schema's output must match the interfaces
    return parsed;
  }
  const issue = result.error.issues[0];
  const where = issue && issue.path.length > 0 ? pathText(issue.path) : 'file';
  throw new CoreError('InvalidArguments', `${what}: ${where}: ${issue?.message ?? 'is invalid'}`, { path: where });
}

/** The text of an info.labels file listing `entries`, indented as the platform's exporter does. */
export function buildInfoLabels(entries: readonly InfoLabelsEntry[]): string {
  const doc = validate({ version: 1, files: entries }, 'Cannot write info.labels');
  return `${JSON.stringify(doc, null, 4)}\n`;
}

export function parseInfoLabels(text: string): InfoLabelsFile {
  let doc: unknown;
  try {
    doc = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new CoreError('InvalidArguments', `info.labels is not valid JSON (${why}); re-export it or fix the syntax`);
  }
  return validate(doc, 'Invalid info.labels');
}
