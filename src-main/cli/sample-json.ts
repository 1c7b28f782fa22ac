import { isAbsolute, join } from 'node:path';
import type { Sample } from '../core/contract/contract.js';

/** One sample as scripts see it: the store's fields plus the platform's answer. */
export function describe(s: Sample, dataDir: string) {
  return {
    id: s.id,
    file: isAbsolute(s.file) ? s.file : join(dataDir, s.file),
    name: s.name,
    kind: s.kind,
    label: s.label,
    category: s.category,
    state: s.state,
    bytes: s.bytes,
    sha256: s.sha256,
    length_ms: s.lengthMs,
    incomplete: s.incomplete,
    // The quality check's verdict: 'error' holds the sample back from uploading until forced.
    flagged: s.flagged,
    held_back: s.heldBack,
    metadata: s.metadata,
    structured_labels: s.structuredLabels,
    created: s.created,
    platform: { sample_id: s.platformSampleId, uploaded_at: s.uploadedAt, error: s.error, note: s.note },
    ...s.extra,
  };
}
