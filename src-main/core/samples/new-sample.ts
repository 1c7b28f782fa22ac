import type { BoundingBox, Category, SampleKind, StructuredLabel } from '../contract/contract.js';
import type { QualityVerdict } from './quality/policy.js';
import { FLAGGED_LEVEL, type SampleRow } from './sample-row.js';

export interface NewSample {
  name: string;
  kind: SampleKind;
  label: string | null;
  category: Category;
  metadata?: Record<string, string>;
  boundingBoxes?: BoundingBox[];
  structuredLabels?: StructuredLabel[] | null;
  lengthMs?: number | null;
  incomplete?: boolean;
  addDateId?: boolean;
  allowDuplicates?: boolean;
  /** Queue it for upload straight away. */
  queue?: boolean;
  note?: string | null;
  extra?: Record<string, unknown>;
}

/** Where a new row's file is and what it holds. */
export interface RowPlace {
  file: string;
  owned: boolean;
  source: { path: string; sha256: string } | null;
  bytes: number;
  sha256: string;
}

/** The index row of a new sample; the quality verdict may hold it back from the queue. */
export function newRow(id: string, input: NewSample, where: RowPlace, verdict: QualityVerdict | null): SampleRow {
  const held = verdict?.held === true;
  return {
    id, name: input.name, file: where.file, owned: where.owned ? 1 : 0, source_path: where.source?.path ?? null, source_sha256: where.source?.sha256 ?? null,
    kind: input.kind, label: input.label, category: input.category, metadata: JSON.stringify(input.metadata ?? {}),
    // Boxes annotate images only; the platform never stores them on other files, nor does the index.
    bounding_boxes: JSON.stringify(input.kind === 'image' ? (input.boundingBoxes ?? []) : []), structured_labels: input.structuredLabels ? JSON.stringify(input.structuredLabels) : null,
    created: new Date().toISOString(), bytes: where.bytes, sha256: where.sha256, length_ms: input.lengthMs ?? verdict?.lengthMs ?? null, incomplete: input.incomplete ? 1 : 0,
    add_date_id: input.addDateId ? 1 : 0, allow_duplicates: input.allowDuplicates ? 1 : 0, state: input.queue && !held ? 'queued' : 'local', attempts: 0,
    next_attempt_at: 0, error: null, note: input.note ?? null, platform_sample_id: null, uploaded_at: null, extra: JSON.stringify(input.extra ?? {}),
    quality: verdict ? JSON.stringify(verdict.report) : null, flagged: verdict?.flagged ? FLAGGED_LEVEL[verdict.flagged] : 0, held_back: held ? 1 : 0,
  };
}

/** Inserts one SampleRow, bound by name. */
export const INSERT_ROW = `INSERT INTO samples (id, name, file, owned, source_path, source_sha256, kind, label, category, metadata, bounding_boxes, structured_labels,
         created, bytes, sha256, length_ms, incomplete, add_date_id, allow_duplicates, state, attempts, next_attempt_at, error, note,
         platform_sample_id, uploaded_at, extra, quality, flagged, held_back)
       VALUES (@id, @name, @file, @owned, @source_path, @source_sha256, @kind, @label, @category, @metadata, @bounding_boxes, @structured_labels,
         @created, @bytes, @sha256, @length_ms, @incomplete, @add_date_id, @allow_duplicates, @state, @attempts, @next_attempt_at, @error, @note,
         @platform_sample_id, @uploaded_at, @extra, @quality, @flagged, @held_back)`;
