import { readFile, rm, writeFile } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import type { Category, Sample } from '../contract/contract.js';
import { CoreError } from '../errors.js';
import { makeDirs } from '../fs/make-dirs.js';
import { nameClashKey, portableFileName } from '../fs/portable-name.js';
import { notAFolder, storageError } from '../fs/storage-error.js';
import { decodeCsv, encodeCsv } from './formats/csv.js';
import { buildInfoLabels, parseInfoLabels, type InfoLabelsEntry } from './formats/info-labels.js';
import { deriveLabel } from './formats/label-from-filename.js';
import type { SampleStore } from './sample-store.js';

/**
 * Moving samples out in the platform's own exchange layout: one folder per category and an
 * info.labels file that carries labels, metadata, boxes and structured labels (reading such a
 * folder back in is import/info-labels-import.ts). Sensor samples can be exported as CSV instead,
 * and CSV files imported into the acquisition format.
 */
export interface ExportOptions {
  csv?: boolean;
  /** Called after each file with (files written, files in all). */
  onProgress?: (done: number, total: number) => void;
  /** Aborting stops between files and removes what this export wrote. */
  signal?: AbortSignal;
}

export async function exportSamples(store: SampleStore, samples: Sample[], outDir: string, opts: ExportOptions = {}): Promise<{ files: number; kept: number }> {
  const { decodeAcquisition, detectAcquisitionFormat } = await import('./formats/acquisition.js');
  const entries: InfoLabelsEntry[] = [];
  const used = new Set<string>();
  const written: string[] = [];
  await makeExportFolder(outDir);
  // A folder exported into before keeps what it holds: its info.labels entries are kept (read
  // first, so an unreadable one stops the export before anything is written) and no file in it is
  // written over (a second export of the same samples lands on the same names, byte for byte).
  const before = await infoLabelsIn(outDir);
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
      await makeDirs(join(outDir, folder));
      const { file, created } = await placeFile(join(outDir, folder), name, bytes, (candidate) => used.has(nameClashKey(`${folder}/${candidate}`)));
      used.add(nameClashKey(`${folder}/${file}`));
      if (created) written.push(join(outDir, folder, file));
      entries.push({
        // info.labels names files with '/' on every OS, as the platform's own exports do.
        path: `${folder}/${file}`,
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
  // The entries of files this export wrote again replace theirs; every other one stays, first.
  const ours = new Set(entries.map((e) => nameClashKey(e.path)));
  const kept = before.filter((e) => !ours.has(nameClashKey(e.path.replaceAll('\\', '/'))));
  await writeFile(join(outDir, 'info.labels'), buildInfoLabels([...kept, ...entries]));
  return { files: entries.length, kept: kept.length };
}

/** The entries of an info.labels already in the export folder (none when there is none); one that cannot be read stops the export, nothing written. */
async function infoLabelsIn(outDir: string): Promise<InfoLabelsEntry[]> {
  const path = join(outDir, 'info.labels');
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    // A read's error does not name its file (EISDIR: a folder of that name): named here, so it is said with the path.
    throw Object.assign(err as NodeJS.ErrnoException, { path });
  }
  try {
    return parseInfoLabels(text).files;
  } catch (err) {
    throw new CoreError('InvalidArguments', `Cannot export into ${outDir}: it holds an info.labels that cannot be read (${(err as Error).message}), and an export adds its entries to it. Export into another folder, or move that file away; nothing was written.`, { path });
  }
}

/**
 * Writes `bytes` as `name` in `dir`, numbered past the names `taken` says this export used and past
 * files already there ('wx': never over one, even one made meanwhile); a file already there with
 * these very bytes is the same file, and is used as it is (`created` false: a cancel leaves it).
 */
async function placeFile(dir: string, name: string, bytes: Buffer, taken: (name: string) => boolean): Promise<{ file: string; created: boolean }> {
  const occupied = new Set<string>();
  for (;;) {
    const file = exportFileName(name, (candidate) => taken(candidate) || occupied.has(candidate));
    try {
      await writeFile(join(dir, file), bytes, { flag: 'wx' });
      return { file, created: true };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw storageError(err, join(dir, file), ELSEWHERE);
    }
    if (await holds(join(dir, file), bytes)) return { file, created: false };
    occupied.add(file);
  }
}

async function holds(path: string, bytes: Buffer): Promise<boolean> {
  try {
    return (await readFile(path)).equals(bytes);
  } catch {
    return false; // a folder or an unreadable file of that name: another name is taken
  }
}

/** What to do instead when the export's folder cannot be written: not "choose another data folder". */
const ELSEWHERE = 'choose another folder to export into';

/**
 * The export's folder, made if missing; a file in its place is said as such, not as the system's
 * ENOTDIR or EEXIST. makeDirs has seen the parent there, so ENOENT means the system makes no folder
 * in it (/proc): said so, where it was "Internal error: ENOENT … mkdir '/proc/x'".
 */
async function makeExportFolder(outDir: string): Promise<void> {
  try {
    await makeDirs(outDir);
  } catch (err) {
    const why = notAFolder(err) ?? ((err as NodeJS.ErrnoException).code === 'ENOENT' ? 'the system allows no folder to be made there (ENOENT)' : null);
    if (why === null) throw storageError(err, outDir, ELSEWHERE);
    throw new CoreError('InvalidArguments', `Cannot export into ${outDir}: ${why}. Choose a folder to export into (it is made if missing); nothing was written.`, { path: outDir });
  }
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
