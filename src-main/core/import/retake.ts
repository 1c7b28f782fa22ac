import { readFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import type { Category, SampleKind, SampleState } from '../contract/contract.js';
import { deriveLabel } from '../samples/formats/label-from-filename.js';
import type { SampleStore } from '../samples/sample-store.js';
import type { BulkOutcome, IndexedOutcome, OnPlatform, Retaken, Words } from './bulk-outcome.js';
import { signIfUnsigned, type ImportOptions } from './import-files.js';

/** Not on the platform and not in flight: these take the words of the run that sends them. */
const UNSENT: readonly SampleState[] = ['local', 'queued', 'failed', 'rejected'];

interface Row {
  id: string;
  name: string;
  kind: SampleKind;
  file: string;
  owned: number;
  sha256: string;
  source_path: string | null;
  source_sha256: string | null;
  state: SampleState;
  note: string | null;
  platform_sample_id: number | null;
  label: string | null;
  category: Category;
  metadata: string;
  bounding_boxes: string;
  structured_labels: string | null;
  add_date_id: number;
  allow_duplicates: number;
}

type Columns = Pick<Row, 'label' | 'category' | 'metadata' | 'bounding_boxes' | 'structured_labels' | 'add_date_id' | 'allow_duplicates'>;

const ROWS = `SELECT id, name, kind, file, owned, sha256, source_path, source_sha256, state, note, platform_sample_id, label, category, metadata,
  bounding_boxes, structured_labels, add_date_id, allow_duplicates FROM samples WHERE id IN (SELECT value FROM json_each(?))`;
const UPDATE = `UPDATE samples SET label = ?, category = ?, metadata = ?, bounding_boxes = ?, structured_labels = ?, add_date_id = ?, allow_duplicates = ?
  WHERE id = ? AND state IN ('local', 'queued', 'failed', 'rejected')`;

/**
 * The words of the run that sends a file win (issue 42): a file this run finds indexed but not yet
 * on the platform (an earlier run's key was refused, or it was killed) gets this run's label,
 * category, metadata, boxes and flags, and a copy signed on import is made again when this run
 * signs otherwise (another key, or none). A file already on the platform is never sent again for
 * other words; its outcome says where it is instead. Changes `outcomes` in place, before the queue
 * can take them: the caller holds their samples out of the queue until then (QueueStore.holdFiles).
 */
export async function retakeKnown(
  store: SampleStore,
  outcomes: BulkOutcome[],
  optionsFor: (path: string) => ImportOptions,
  importAgain: (path: string, o: ImportOptions) => Promise<BulkOutcome>,
): Promise<void> {
  const known = outcomes.flatMap((o, k) => (o.status === 'known' ? [k] : []));
  if (known.length === 0) return;
  const ids = known.map((k) => (outcomes[k] as IndexedOutcome).id);
  const rows = new Map((store.db.prepare(ROWS).all(JSON.stringify(ids)) as Row[]).map((r) => [r.id, r]));
  const updates: Array<{ row: Row; to: Columns }> = [];
  const remake: number[] = [];
  for (const k of known) {
    const o = outcomes[k] as IndexedOutcome;
    const row = rows.get(o.id);
    if (!row) continue;
    const fo = optionsFor(o.path);
    const to = columnsFor(fo, row);
    if (row.state === 'uploaded') {
      if (!sameWords(row, to)) o.onPlatform = { there: sentByUs(row) ? words(row) : null, platformSampleId: platformId(row), asked: words(to) };
      continue;
    }
    if (!UNSENT.includes(row.state)) continue; // in flight in another queue: its answer decides
    if (await signedOtherwise(store.dataDir, row, fo)) remake.push(k);
    else {
      const changed = differences(row, to);
      if (changed.length > 0) {
        updates.push({ row, to });
        o.retaken = { changed, now: words(to) };
      }
    }
  }
  if (updates.length > 0) {
    const st = store.db.prepare(UPDATE);
    store.db.transaction(() => {
      for (const { row, to } of updates) st.run(to.label, to.category, to.metadata, to.bounding_boxes, to.structured_labels, to.add_date_id, to.allow_duplicates, row.id);
    })();
    store.changed(updates.flatMap((u) => (u.row.owned === 1 ? [u.row.id] : [])));
  }
  for (const k of remake) {
    const old = outcomes[k] as IndexedOutcome;
    const row = rows.get(old.id)!;
    await store.deleteMany([old.id]);
    const fo = optionsFor(old.path);
    const made = await importAgain(old.path, fo);
    if (made.status !== 'refused') made.retaken = { changed: ['HMAC signing', ...differences(row, columnsFor(fo, row))], now: words(columnsFor(fo, row)) };
    outcomes[k] = made;
  }
}

/** The columns a sample of `row`'s file gets from these options, as the import writes them. */
function columnsFor(o: ImportOptions, row: Pick<Row, 'name' | 'kind'>): Columns {
  return {
    label: o.label === undefined ? deriveLabel(row.name) : o.label,
    category: o.category,
    metadata: JSON.stringify(o.metadata),
    // Boxes annotate images only, as the import keeps them.
    bounding_boxes: JSON.stringify(row.kind === 'image' ? o.boundingBoxes : []),
    structured_labels: o.structuredLabels?.length ? JSON.stringify(o.structuredLabels) : null,
    add_date_id: o.addDateId ? 1 : 0,
    allow_duplicates: o.allowDuplicates ? 1 : 0,
  };
}

function differences(row: Columns, to: Columns): string[] {
  const out: string[] = [];
  if (row.label !== to.label) out.push('label');
  if (row.category !== to.category) out.push('category');
  if (!sameJson(row.metadata, to.metadata)) out.push('metadata');
  if (!sameJson(row.bounding_boxes, to.bounding_boxes)) out.push('bounding boxes');
  if (!sameJson(row.structured_labels, to.structured_labels)) out.push('structured labels');
  if (row.add_date_id !== to.add_date_id || row.allow_duplicates !== to.allow_duplicates) out.push('flags');
  return out;
}

/** What the platform stores about a sample: flags only shaped the request that carried it. */
function sameWords(row: Columns, to: Columns): boolean {
  return row.label === to.label && row.category === to.category && sameJson(row.metadata, to.metadata);
}

const words = (c: Pick<Columns, 'label' | 'category'>): Words => ({ label: c.label, category: c.category });

/** The queue's note for a file the platform refused as a copy of one it had (UploadQueue). */
const sentByUs = (row: Row) => !row.note?.includes('Already on the platform');

function platformId(row: Row): number | null {
  if (row.platform_sample_id !== null) return row.platform_sample_id;
  const id = /\(ID (\d+)\)/.exec(row.note ?? '')?.[1];
  return id === undefined ? null : Number(id);
}

/** Equal as JSON values, whatever order the keys were written in. */
function sameJson(a: string | null, b: string | null): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  return canonical(JSON.parse(a)) === canonical(JSON.parse(b));
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/**
 * Whether the bytes waiting to be sent were signed otherwise than this run signs: a copy signed on
 * import by an earlier run with another key (or by a run with a key, where this one gives none),
 * or the file as it is where this run signs it. Only JSON/CBOR sensor files are ever signed.
 */
async function signedOtherwise(dataDir: string, row: Row, o: ImportOptions): Promise<boolean> {
  if (!/\.(json|cbor)$/i.test(row.name) || row.source_path === null || row.source_sha256 === null) return false;
  const isCopy = row.sha256 !== row.source_sha256;
  if (o.hmacKey === undefined) return isCopy;
  if (!isCopy) return (await signIfUnsigned(row.source_path, o.hmacKey).catch(() => null)) !== null;
  const { verifyAcquisitionSignature } = await import('../samples/formats/acquisition.js');
  try {
    return !verifyAcquisitionSignature(await readFile(isAbsolute(row.file) ? row.file : join(dataDir, row.file)), o.hmacKey);
  } catch {
    return true; // the copy is gone or unreadable: made again from the file
  }
}
