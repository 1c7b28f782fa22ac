import { readdir, readFile, stat as statAsync } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve, sep } from 'node:path';
import type { BoundingBox, Category, Sample, SampleKind, StructuredLabel } from '../contract/contract.js';
import { deriveLabel, fileKind } from '../samples/formats/label-from-filename.js';
import { lengthOfFile } from '../samples/formats/file-length.js';
import { measureFile } from '../samples/sample-files.js';
import type { SampleStore } from '../samples/sample-store.js';
import type { FileAnnotation } from './folder-labels.js';
import { MAX_FILE_BYTES } from '../upload/ingestion-client.js';

export interface ImportOptions {
  category: Category;
  /** A label for every file; null = unlabeled; undefined = the platform's file-name rule. */
  label: string | null | undefined;
  metadata: Record<string, string>;
  boundingBoxes: BoundingBox[];
  addDateId: boolean;
  allowDuplicates: boolean;
  /** Signs unsigned JSON/CBOR sensor files; files a device already signed are kept byte for byte. */
  hmacKey?: string | undefined;
  queue: boolean;
  /**
   * A file found indexed but not yet on the platform takes this run's words (label, category,
   * metadata, boxes, flags, signing), and one on the platform under other words says so in its
   * outcome (retake.ts). For `capture-desk upload`, where the later run's words win.
   */
  retake?: boolean;
  /** Event marks or a labels file's multi-label entry; they travel in an info.labels part. */
  structuredLabels?: StructuredLabel[] | null;
  /**
   * Keep a copy in the data folder instead of indexing the file where it lies (`samples import` of
   * single files: a take from elsewhere becomes the data folder's own). Costs an fsync per file.
   */
  copy?: boolean;
  /** The outcomes carry their samples (for importers that print or answer them), without reading them back. */
  withSamples?: boolean;
  /**
   * Looks at a file before it is indexed: a string refuses it (the reason in words, e.g. "not a
   * readable WAV"), null takes it, and `{ lengthMs }` takes it with the length the check read (so
   * its payload is not parsed a second time for it).
   */
  check?: ((path: string, bytes: Buffer) => string | null | { lengthMs: number | null }) | undefined;
  /**
   * With `copy`: files kept as another file (a CSV of readings becomes acquisition CBOR). Such a
   * sample names no source, so importing the file again adds it again; `check` is not asked, nor
   * is the platform's size cap (it applies to what is kept). A throw from `make` refuses the file
   * with the error's message.
   */
  convert?: { applies: (path: string) => boolean; make: (path: string, bytes: Buffer) => ConvertedFile } | undefined;
}

/** A file's bytes made into a sample's (ImportOptions.convert). */
export interface ConvertedFile {
  name: string;
  bytes: Buffer;
  /** Overrides what the run's options give (a label the caller derives itself, the length it read). */
  sample: Partial<Pick<Sample, 'kind' | 'label' | 'lengthMs'>>;
}

/**
 * The options for one file once its folder's labels files are applied: what a labels file says
 * about the file wins over the run's flags. Labels are trimmed: they travel in an HTTP header,
 * which carries no white space at either end, and the index keeps what the platform stores.
 */
export function withAnnotation(o: ImportOptions, a: FileAnnotation | undefined): ImportOptions {
  const label = o.label === undefined || o.label === null ? o.label : o.label.trim();
  if (!a) return label === o.label ? o : { ...o, label };
  return {
    ...o,
    category: a.category ?? o.category,
    label: a.label !== undefined ? a.label : label,
    metadata: a.metadata ?? o.metadata,
    boundingBoxes: a.boundingBoxes ?? o.boundingBoxes,
    structuredLabels: a.structuredLabels ?? o.structuredLabels ?? null,
  };
}

export type ImportOutcome =
  | { path: string; status: 'added'; sample: Sample }
  | { path: string; status: 'known'; sample: Sample }
  | { path: string; status: 'refused'; reason: string };

/** What a walk of the given paths found. */
export interface CollectedFiles {
  /** Files to upload as samples. */
  files: string[];
  skipped: Array<{ path: string; reason: string }>;
  /** info.labels and bounding_boxes.labels in the folders of the files (see folder-labels.ts). */
  labelsFiles: string[];
  /** Names starting with '.' inside the folders walked (files and folders), left out on purpose. */
  hidden: string[];
}

/** Every file under the given paths that the platform accepts, the labels files beside them, and what was left out. */
export async function collectFiles(paths: string[]): Promise<CollectedFiles> {
  const files: string[] = [];
  const seen = new Set<string>();
  const skipped: Array<{ path: string; reason: string }> = [];
  const labelsFiles = new Set<string>();
  const hidden: string[] = [];
  /** Folders whose labels files were looked for: a file named on its own uses its folder's too, as the platform's uploader does. */
  const looked = new Set<string>();
  /**
   * Folders entered, by device and inode, with the path each was first entered by. A link to a
   * folder above it (`in/self -> ..`) made a loop the walk followed until the system's 40 levels
   * of links: the same files uploaded and indexed 41 times. Each folder is read once.
   */
  const entered = new Map<string, string>();
  const enter = async (dir: string, st: { dev: number; ino: number }, viaLink: boolean): Promise<void> => {
    const key = `${st.dev}:${st.ino}`;
    const first = entered.get(key);
    if (first === undefined) {
      entered.set(key, dir);
      await walk(dir);
    } else if (first !== dir) {
      skipped.push({ path: dir, reason: viaLink ? `a link back to ${first}, read once already` : `the same folder as ${first}, read once already` });
    }
  };
  const visit = async (p: string, named: boolean): Promise<void> => {
    let st;
    try {
      st = await statAsync(p);
    } catch (err) {
      // A path that is not there (most often a typo on a command line) is said as such, not by its errno.
      const code = (err as NodeJS.ErrnoException).code;
      skipped.push({ path: p, reason: code === 'ENOENT' ? 'no such file or folder' : `cannot read it (${code ?? (err as Error).message})` });
      return;
    }
    if (st.isDirectory()) await enter(p, st, !named);
    else if (st.isFile()) {
      take(p);
      if (named) await lookBeside(dirname(p));
    }
  };
  const take = (p: string) => {
    const kind = fileKind(p);
    if (kind === null) skipped.push({ path: p, reason: `the platform does not accept "${extname(p) || 'no extension'}" files` });
    else if (kind === 'labels') {
      if (LABELS_FILES.includes(basename(p))) labelsFiles.add(p);
      else skipped.push({ path: p, reason: `only ${LABELS_FILES.join(' and ')} are read as labels files` });
    } else if (!seen.has(p)) {
      // A folder and a file in it both given: upload the file once.
      seen.add(p);
      files.push(p);
    }
  };
  const lookBeside = async (dir: string): Promise<void> => {
    if (looked.has(dir)) return;
    looked.add(dir);
    for (const name of LABELS_FILES) {
      const p = join(dir, name);
      if (await statAsync(p).then((s) => s.isFile(), () => false)) labelsFiles.add(p);
    }
  };
  // One readdir with types per folder instead of a stat per file: folders of 10,000 captures are common.
  const walk = async (dir: string): Promise<void> => {
    looked.add(dir);
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
    // `dir` is absolute and normalized and an entry's name has no separator: no path.join per file.
    const prefix = dir.endsWith(sep) ? dir : dir + sep;
    for (const e of entries) {
      const full = prefix + e.name;
      if (e.name.startsWith('.')) hidden.push(e.isDirectory() ? `${full}${sep}` : full);
      else if (e.isDirectory()) await enter(full, await statAsync(full), false);
      else if (e.isFile()) take(full);
      else if (e.isSymbolicLink()) await visit(full, false);
    }
  };
  for (const p of paths) await visit(resolve(p), true);
  return { files, skipped, labelsFiles: [...labelsFiles], hidden };
}

const LABELS_FILES = ['info.labels', 'bounding_boxes.labels'];

/**
 * Adds one file as a sample. Re-running an import after a crash finds the same file (path and
 * content hash) and reuses its sample, so nothing is queued twice.
 */
export async function importFile(store: SampleStore, path: string, o: ImportOptions): Promise<ImportOutcome> {
  const st = await statAsync(path);
  if (st.size > MAX_FILE_BYTES) {
    return { path, status: 'refused', reason: `${(st.size / 1048576).toFixed(1)} MB is over the platform's 100 MB per file; split it first` };
  }
  // The spec lists .jpg only; the same bytes under .jpeg would be refused.
  const name = basename(path).replace(/\.jpeg$/i, '.jpg');
  const kind = fileKind(name) as SampleKind;
  const label = o.label === undefined ? deriveLabel(name) : o.label;
  const hash = (await measureFile(path)).sha256;
  const known = store.findBySource(path, hash);
  if (known) return { path, status: 'known', sample: known };

  const base = {
    name, kind, label, category: o.category, metadata: o.metadata, boundingBoxes: o.boundingBoxes, structuredLabels: o.structuredLabels ?? null,
    addDateId: o.addDateId, allowDuplicates: o.allowDuplicates, queue: o.queue, lengthMs: await lengthOfFile(path, name, st.size),
  };
  const ext = extname(name).toLowerCase();
  if (o.hmacKey !== undefined && (ext === '.json' || ext === '.cbor')) {
    const signed = await signIfUnsigned(path, o.hmacKey);
    if (signed) {
      const sample = await store.addBytes({ ...base, note: 'signed with the project HMAC key on import' }, signed, { path, sha256: hash });
      return { path, status: 'added', sample };
    }
  }
  // Checked where it lies (watched folders, single imports); the bulk path above leaves that to the app.
  return { path, status: 'added', sample: store.addReference(base, { path, bytes: st.size, sha256: hash }, await store.inspect({ path }, base)) };
}

/** The file signed with `hmacKey`, or null when it is not ours to sign (signed by its device, or not an acquisition file). */
export async function signIfUnsigned(path: string, hmacKey: string): Promise<Buffer | null> {
  // Loaded on demand: the codecs (cbor-x, zod) cost a bulk upload start-up time it rarely needs.
  const { decodeAcquisition, detectAcquisitionFormat, encodeAcquisition } = await import('../samples/formats/acquisition.js');
  const bytes = await readFile(path);
  const format = detectAcquisitionFormat(bytes);
  let msg;
  try {
    msg = decodeAcquisition(bytes, format);
  } catch {
    return null; // not ours to fix: the platform will say what is wrong with it
  }
  if (msg.protected.alg !== 'none') return null;
  return encodeAcquisition({ protected: msg.protected.iat === undefined ? {} : { iat: msg.protected.iat }, payload: msg.payload }, { format, hmacKey });
}
