import { readFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Category, Sample } from '../contract/contract.js';
import { CoreError } from '../errors.js';
import { pathFlavor, isInside, type PathFlavor } from '../fs/path-flavor.js';
import { parseInfoLabels } from '../samples/formats/info-labels.js';
import { fileKind } from '../samples/formats/label-from-filename.js';
import type { SampleStore } from '../samples/sample-store.js';
import { importFiles, type BulkOutcome } from './bulk-import.js';
import type { FileAnnotation } from './folder-labels.js';
import type { ImportOptions } from './import-files.js';

/**
 * Where an info.labels entry's file lies. The platform writes '/', but a file edited or made on
 * Windows may say `training\idle.cbor`; that is read as a folder on every OS. Null when the entry
 * points outside the export's folder (absolute, or up through '..'): an info.labels from
 * elsewhere must not pick files off the rest of the disk to upload.
 */
export function entryPath(labelsDir: string, entry: string, flavor: PathFlavor = pathFlavor()): string | null {
  const rel = entry.replace(/\\/g, '/');
  if (rel.startsWith('/') || /^[a-zA-Z]:/.test(rel)) return null;
  const parts = rel.split('/');
  const full = flavor.api.join(labelsDir, ...parts);
  // Without a '..' it cannot leave the folder (the usual entry: no comparison of the two paths, which
  // costs an export of 10,000 files a tenth of a second); it must still name something below it.
  if (!parts.includes('..')) return parts.some((p) => p !== '' && p !== '.') ? full : null;
  return isInside(labelsDir, full, flavor) ? full : null;
}

export interface ImportedSet {
  added: Sample[];
  /** Files this data folder had already (same path and content): found, not added twice. */
  known: Sample[];
  problems: Array<{ path: string; reason: string }>;
}

/**
 * Reads an info.labels file (or a folder holding one) and adds every file it lists, as it says.
 * The files are indexed where they lie, through the same reader, batches and index writes as
 * `capture-desk upload` (core/import/bulk-import.ts): one read and hash per file, one transaction
 * per 256 files, the length from each file's header. An export of thousands of files is imported
 * at thousands of files a second, and importing it again finds each file instead of adding it twice.
 * `copy` keeps a copy of each file in the data folder instead (written and synced a batch at a
 * time, with its sidecar: slower than indexing where they lie).
 */
export async function importInfoLabels(store: SampleStore, path: string, opts: { queue: boolean; copy?: boolean }): Promise<ImportedSet> {
  // INFO.LABELS is the same file on Windows and macOS; on Linux a file given by name is clearly meant too.
  const file = basename(path).toLowerCase() === 'info.labels' ? resolve(path) : join(resolve(path), 'info.labels');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new CoreError('NotFound', `No info.labels at ${file}. Point to the file, or to the folder the platform's export wrote.`);
  }
  const parsed = parseInfoLabels(text);
  const problems: ImportedSet['problems'] = [];
  const annotations = new Map<string, FileAnnotation>();
  for (const e of parsed.files) {
    const full = entryPath(dirname(file), e.path);
    if (full === null) {
      problems.push({ path: e.path, reason: 'it points outside the folder of info.labels; list files by their path below that folder, as the platform does' });
      continue;
    }
    const kind = fileKind(full);
    if (kind === null || kind === 'labels') {
      problems.push({ path: full, reason: 'not a file type the platform accepts' });
      continue;
    }
    if (annotations.has(full)) continue; // listed twice: added once, as the first entry says
    const a: FileAnnotation = { category: e.category as Category, metadata: e.metadata ?? {}, boundingBoxes: e.boundingBoxes ?? [] };
    // No label: the platform's file-name rule (the run's label is undefined).
    if (e.label?.type === 'label') a.label = e.label.label;
    else if (e.label?.type === 'unlabeled') a.label = null;
    else if (e.label?.type === 'multi-label') Object.assign(a, { label: null, structuredLabels: e.label.labels });
    annotations.set(full, a);
  }
  const run: ImportOptions = { category: 'training', label: undefined, metadata: {}, boundingBoxes: [], addDateId: false, allowDuplicates: false, queue: opts.queue, withSamples: true, copy: opts.copy ?? false };
  const outcomes = await importFiles(store, [...annotations.keys()], run, () => {}, annotations);
  return { ...samplesOf(store, outcomes), problems: [...problems, ...refusals(outcomes)] };
}

/** The samples a bulk import made or found, in the order of its files. */
export function samplesOf(store: SampleStore, outcomes: readonly BulkOutcome[]): Pick<ImportedSet, 'added' | 'known'> {
  // Those the import did not hand over (found, not added) are read back in one statement.
  const ids = outcomes.flatMap((o) => (o.status === 'refused' || o.sample ? [] : [o.id]));
  const found = store.getMany(ids);
  const added: Sample[] = [];
  const known: Sample[] = [];
  for (const o of outcomes) {
    if (o.status === 'refused') continue;
    const s = o.sample ?? found.get(o.id);
    if (s) (o.status === 'added' ? added : known).push(s);
  }
  return { added, known };
}

export function refusals(outcomes: readonly BulkOutcome[]): ImportedSet['problems'] {
  return outcomes.flatMap((o) => (o.status === 'refused' ? [{ path: o.path, reason: o.reason }] : []));
}
