import { readFile, rm, writeFile } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import type { Category, Sample } from '../contract/contract.js';
import { CoreError } from '../errors.js';
import { makeDirs } from '../fs/make-dirs.js';
import { nameClashKey, portableFileName } from '../fs/portable-name.js';
import { notAFolder, storageError } from '../fs/storage-error.js';
import { decodeCsv, encodeCsv } from './formats/csv.js';
import { buildInfoLabels, type InfoLabelsEntry } from './formats/info-labels.js';
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

export async function exportSamples(store: SampleStore, samples: Sample[], outDir: string, opts: ExportOptions = {}): Promise<{ files: number }> {
  const { decodeAcquisition, detectAcquisitionFormat } = await import('./formats/acquisition.js');
  const entries: InfoLabelsEntry[] = [];
  const used = new Set<string>();
  const written: string[] = [];
  await makeExportFolder(outDir);
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
      await makeDirs(join(outDir, folder));
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

/** The export's folder, made if missing; a file in its place is said as such, not as the system's ENOTDIR or EEXIST. */
async function makeExportFolder(outDir: string): Promise<void> {
  try {
    await makeDirs(outDir);
  } catch (err) {
    const why = notAFolder(err);
    if (why === null) throw storageError(err, outDir);
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
