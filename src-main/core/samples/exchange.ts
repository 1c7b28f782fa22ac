import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import type { Category, Sample } from '../contract/contract.js';
import { CoreError } from '../errors.js';
import { pathFlavor, isInside, type PathFlavor } from '../fs/path-flavor.js';
import { nameClashKey, portableFileName } from '../fs/portable-name.js';
import { decodeCsv, encodeCsv } from './formats/csv.js';
import { buildInfoLabels, parseInfoLabels, type InfoLabelsEntry } from './formats/info-labels.js';
import { deriveLabel, fileKind } from './formats/label-from-filename.js';
import type { SampleStore } from './sample-store.js';
import { importFiles, type BulkOutcome } from '../upload/bulk-import.js';
import type { FileAnnotation } from '../upload/folder-labels.js';
import type { ImportOptions } from '../upload/import-files.js';

/**
 * Moving samples in and out in the platform's own exchange layout: one folder per category and an
 * info.labels file that carries labels, metadata, boxes and structured labels. Sensor samples can
 * be exported as CSV instead, and CSV files imported into the acquisition format.
 */
export interface ExportOptions {
  csv?: boolean;
  /** Called after each file with (files written, files in all). */
  onProgress?: (done: number, total: number) => void;
  /** Aborting stops between files and removes what this export wrote. */
  signal?: AbortSignal;
}

export async function exportSamples(store: SampleStore, samples: Sample[], outDir: string, opts: ExportOptions = {}): Promise<{ files: number }> {
  const { decodeAcquisition, detectAcquisitionFormat } = await import('./formats/acquisition.js');
  const entries: InfoLabelsEntry[] = [];
  const used = new Set<string>();
  const written: string[] = [];
  try {
    for (const s of samples) {
      if (opts.signal?.aborted) throw new CoreError('Cancelled', 'The export was cancelled; the files it had written were removed.');
      let bytes: Buffer = await store.readBytes(s);
      let name = s.name;
      if (opts.csv && s.kind === 'sensor' && /\.(json|cbor)$/i.test(name)) {
        const msg = decodeAcquisition(bytes, detectAcquisitionFormat(bytes));
        bytes = Buffer.from(encodeCsv({ interval_ms: msg.payload.interval_ms, sensors: msg.payload.sensors, values: msg.payload.values }, { withUnits: true }));
        name = name.replace(/\.(json|cbor)$/i, '.csv');
      }
      const folder = s.category === 'split' ? 'training' : s.category;
      const file = exportFileName(name, (candidate) => used.has(nameClashKey(`${folder}/${candidate}`)));
      used.add(nameClashKey(`${folder}/${file}`));
      // info.labels names files with '/' on every OS, as the platform's own exports do.
      const rel = `${folder}/${file}`;
      await mkdir(join(outDir, folder), { recursive: true });
      await writeFile(join(outDir, folder, file), bytes);
      written.push(join(outDir, folder, file));
      entries.push({
        path: rel,
        name: stemOf(file),
        // The folder the file is in: a 'split' sample written under training/ is a training file there.
        category: folder,
        label: s.structuredLabels?.length ? { type: 'multi-label', labels: s.structuredLabels } : s.label === null ? { type: 'unlabeled' } : { type: 'label', label: s.label },
        metadata: s.metadata,
        ...(s.boundingBoxes.length ? { boundingBoxes: s.boundingBoxes } : {}),
      });
      opts.onProgress?.(entries.length, samples.length);
    }
    if (opts.signal?.aborted) throw new CoreError('Cancelled', 'The export was cancelled; the files it had written were removed.');
  } catch (err) {
    for (const f of written) await rm(f, { force: true });
    throw err;
  }
  await writeFile(join(outDir, 'info.labels'), buildInfoLabels(entries));
  return { files: entries.length };
}

/**
 * The name a sample's file gets in an export: one every OS accepts (a label may hold ':' or '/'),
 * numbered when `taken` says the folder has it already. Taken is asked about the name as a whole,
 * since Windows and macOS see `Idle.cbor` and `idle.cbor` as one file.
 */
export function exportFileName(sampleName: string, taken: (name: string) => boolean): string {
  const name = portableFileName(sampleName);
  const ext = extname(name);
  let file = name;
  for (let i = 2; taken(file); i++) file = `${name.slice(0, name.length - ext.length)}-${i}${ext}`;
  return file;
}

function stemOf(file: string): string {
  const ext = extname(file);
  return file.slice(0, file.length - ext.length);
}

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
 * `capture-desk upload` (core/upload/bulk-import.ts): one read and hash per file, one transaction
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

/** A CSV of readings becomes an acquisition-format sample (CBOR), optionally signed. */
export async function importCsv(store: SampleStore, path: string, o: { category: Category; label?: string | null; deviceType?: string; hmacKey?: string; queue: boolean }): Promise<Sample> {
  // The codec (cbor-x, zod) is loaded when a CSV needs it, not with every `samples` command.
  const { encodeAcquisition } = await import('./formats/acquisition.js');
  const made = csvAsCbor(encodeAcquisition, path, await readFile(path, 'utf8'), o);
  return store.addBytes({ name: made.name, kind: 'sensor', label: made.label, category: o.category, queue: o.queue, lengthMs: made.lengthMs }, made.bytes);
}

/**
 * A CSV file's readings as the acquisition-format sample (CBOR) importCsv keeps: its name (the
 * CSV's, ending .cbor), bytes, label (`label` undefined = the platform's file-name rule) and
 * length. Throws the CSV reader's words when the file is not readings.
 */
export function csvAsCbor(
  encode: typeof import('./formats/acquisition.js').encodeAcquisition,
  path: string,
  text: string,
  o: { label?: string | null; deviceType?: string; hmacKey?: string },
): { name: string; bytes: Buffer; label: string | null; lengthMs: number } {
  const series = decodeCsv(text);
  const bytes = encode(
    { payload: { device_type: o.deviceType ?? 'CSV_IMPORT', interval_ms: series.interval_ms, sensors: series.sensors, values: series.values } },
    { format: 'cbor', ...(o.hmacKey ? { hmacKey: o.hmacKey } : {}) },
  );
  const name = basename(path).replace(/\.csv$/i, '.cbor');
  return { name, bytes, label: o.label === undefined ? deriveLabel(name) : o.label, lengthMs: series.values.length * series.interval_ms };
}
