import type { Category, IndexRebuild, Sample } from '../contract/contract.js';
import type { IndexDamage } from './index-open.js';
import { scanAcquisition } from './formats/acquisition-scan.js';
import { fileKind } from './formats/label-from-filename.js';
import { decodeWavHeader } from './formats/wav.js';
import type { SampleRow } from './sample-row.js';
import type { Sidecar } from './sidecar.js';

/** What a file found in samples/ without an index row became, and what of its row was lost. */
export interface RebuiltRow {
  row: SampleRow;
  /** 'sidecar': every field came back; 'contents': only what the file itself says. */
  from: 'sidecar' | 'contents';
  /** It was waiting in the upload queue (or being sent): it comes back local. */
  wasPending: boolean;
}

const PENDING: ReadonlySet<Sample['state']> = new Set(['queued', 'uploading', 'failed']);

export interface FoundFile {
  id: string;
  /** Stored place, `samples/<id><ext>`. */
  file: string;
  bytes: Uint8Array;
  sha256: string;
}

/**
 * The row a sidecar describes, put back on its file. Upload state survives as "uploaded (with
 * the platform's id) or not": a sample that was queued comes back local, because the queue's
 * moves are not written to sidecars (a 1000-file batch would cost 3000 writes).
 */
export function rowFromSidecar(f: FoundFile, s: Sidecar): RebuiltRow {
  const r = s.row;
  const uploaded = r.state === 'uploaded';
  const changed = r.sha256 !== f.sha256;
  const row: SampleRow = {
    id: f.id, name: str(r.name, `${f.id}`), file: f.file, owned: 1, source_path: r.source_path ?? null, source_sha256: r.source_sha256 ?? null,
    kind: r.kind, label: r.label ?? null, category: r.category, metadata: str(r.metadata, '{}'), bounding_boxes: str(r.bounding_boxes, '[]'),
    structured_labels: r.structured_labels ?? null, created: str(r.created, new Date().toISOString()), bytes: f.bytes.byteLength, sha256: f.sha256,
    length_ms: r.length_ms ?? null, incomplete: r.incomplete ? 1 : 0, add_date_id: r.add_date_id ? 1 : 0, allow_duplicates: r.allow_duplicates ? 1 : 0,
    state: uploaded ? 'uploaded' : 'local', attempts: 0, next_attempt_at: 0, error: null,
    note: changed ? joinNotes(r.note, 'the file changed since it was indexed (its sidecar holds another hash): check it before uploading') : (r.note ?? null),
    platform_sample_id: uploaded ? (r.platform_sample_id ?? null) : null, uploaded_at: uploaded ? (r.uploaded_at ?? null) : null,
    extra: str(r.extra, '{}'), quality: r.quality ?? null, flagged: r.flagged ?? 0, held_back: r.held_back ? 1 : 0,
  };
  return { row, from: 'sidecar', wasPending: PENDING.has(r.state) };
}

/**
 * A row from the file alone: its kind from the extension, and for acquisition files (device,
 * interval, sensors, rows) and WAV files (rate, channels, length) what their headers say. Label,
 * category, metadata, name and upload state are not in the file: they are stated lost in `note`.
 */
export function rowFromContents(f: FoundFile, fileName: string, note: string): RebuiltRow {
  const kind = fileKind(fileName);
  let lengthMs: number | null = null;
  let extra: Record<string, unknown> = { recovered_from: 'file' };
  let problem: string | null = null;
  try {
    if (kind === 'sensor' && /\.(cbor|json)$/i.test(fileName)) {
      const a = scanAcquisition(f.bytes);
      lengthMs = a.rows * a.intervalMs;
      extra = { ...extra, rows: a.rows, interval_ms: a.intervalMs, sensors: a.sensors.map((s) => s.name), device_type: a.deviceType, ...(a.deviceName ? { device: a.deviceName } : {}), signed: a.alg === 'HS256' };
    } else if (kind === 'audio') {
      const w = decodeWavHeader(f.bytes);
      const frames = w.dataBytes / ((w.bitsPerSample / 8) * w.channels);
      lengthMs = (frames * 1000) / w.sampleRate;
      extra = { ...extra, rows: frames, interval_ms: 1000 / w.sampleRate, sample_rate: w.sampleRate, channels: w.channels };
    }
  } catch (err) {
    problem = `its contents could not be read (${(err as Error).message})`;
  }
  const category: Category = 'training';
  const row: SampleRow = {
    id: f.id, name: fileName, file: f.file, owned: 1, source_path: null, source_sha256: null,
    kind: kind === null || kind === 'labels' ? 'other' : kind, label: null, category, metadata: '{}', bounding_boxes: '[]', structured_labels: null,
    created: new Date().toISOString(), bytes: f.bytes.byteLength, sha256: f.sha256, length_ms: lengthMs, incomplete: 0, add_date_id: 0, allow_duplicates: 0,
    state: 'local', attempts: 0, next_attempt_at: 0, error: null, note: problem ? joinNotes(note, problem) : note, platform_sample_id: null, uploaded_at: null,
    extra: JSON.stringify(extra), quality: null, flagged: 0, held_back: 0,
  };
  return { row, from: 'contents', wasPending: false };
}

function str(v: unknown, fallback: string): string {
  return typeof v === 'string' ? v : fallback;
}

function joinNotes(a: string | null, b: string): string {
  return a ? `${a}; ${b}` : b;
}

export const LOST_NOTE = 'recovered from its file alone when the index was rebuilt: label, category, metadata and upload state were lost; check them before uploading (uploading it again is safe: the platform skips duplicates)';

/** What a start that found the index lost did about it, in numbers and in words for a person. */
export function rebuildReport(lost: IndexDamage, rebuilt: RebuiltRow[]): IndexRebuild {
  const restored = rebuilt.filter((r) => r.from === 'sidecar').length;
  const fromContents = rebuilt.length - restored;
  const wasPending = rebuilt.filter((r) => r.wasPending).length;
  const parts = [
    `The sample index was lost (${lost.reason}) and has been rebuilt from the ${rebuilt.length} files in samples/.`,
    lost.keptAs.length ? `The damaged index is kept as ${lost.keptAs.join(', ')} in the data folder.` : '',
    `${restored} samples came back with their labels, categories, metadata and upload state.`,
    fromContents
      ? `Upload state, label, category and metadata unknown for ${fromContents} samples (no sidecar): they are kept local with a note; set their labels, and queue them again — the platform's duplicate check prevents double uploads.`
      : '',
    wasPending ? `${wasPending} samples were waiting to be uploaded and are local now: queue them again.` : '',
    'Samples indexed where they lie (bulk uploads, watched folders) are not in the rebuilt index; their files were not touched: add them again (the platform skips those already uploaded).',
    'No sample file was deleted.',
  ];
  return { at: new Date().toISOString(), reason: lost.reason, keptAs: lost.keptAs, restored, fromContents, wasPending, message: parts.filter(Boolean).join(' ') };
}

