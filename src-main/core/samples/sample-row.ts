import type { Sample } from '../contract/contract.js';

/** A row of the samples table as SQLite returns it. */
export interface SampleRow {
  id: string;
  name: string;
  file: string;
  owned: number;
  source_path: string | null;
  source_sha256: string | null;
  kind: Sample['kind'];
  label: string | null;
  category: Sample['category'];
  metadata: string;
  bounding_boxes: string;
  structured_labels: string | null;
  created: string;
  bytes: number;
  sha256: string;
  length_ms: number | null;
  incomplete: number;
  add_date_id: number;
  allow_duplicates: number;
  state: Sample['state'];
  attempts: number;
  next_attempt_at: number;
  error: string | null;
  note: string | null;
  platform_sample_id: number | null;
  uploaded_at: string | null;
  extra: string;
  quality: string | null;
  /** 0 none, 1 warning, 2 error. */
  flagged: number;
  held_back: number;
}

export const FLAGGED_LEVEL = { warning: 1, error: 2 } as const;
const FLAGGED_NAME = [null, 'warning', 'error'] as const;

export function rowToSample(r: SampleRow): Sample {
  return {
    id: r.id,
    name: r.name,
    file: r.file,
    kind: r.kind,
    label: r.label,
    category: r.category,
    metadata: JSON.parse(r.metadata) as Record<string, string>,
    boundingBoxes: JSON.parse(r.bounding_boxes) as Sample['boundingBoxes'],
    structuredLabels: r.structured_labels ? (JSON.parse(r.structured_labels) as Sample['structuredLabels']) : null,
    created: r.created,
    bytes: r.bytes,
    sha256: r.sha256,
    lengthMs: r.length_ms,
    incomplete: r.incomplete === 1,
    state: r.state,
    attempts: r.attempts,
    error: r.error,
    note: r.note,
    platformSampleId: r.platform_sample_id,
    uploadedAt: r.uploaded_at,
    extra: JSON.parse(r.extra) as Record<string, unknown>,
    quality: r.quality ? (JSON.parse(r.quality) as Sample['quality']) : null,
    flagged: FLAGGED_NAME[r.flagged] ?? null,
    heldBack: r.held_back === 1,
  };
}
