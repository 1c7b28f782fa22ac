import { basename, extname, resolve } from 'node:path';
import type { Category } from '../contract/contract.js';
import { csvAsCbor } from '../samples/exchange.js';
import { fileKind } from '../samples/formats/label-from-filename.js';
import type { SampleStore } from '../samples/sample-store.js';
import { notAcquisitionFile } from './acquisition-words.js';
import { importFiles } from './bulk-import.js';
import { samplesOf, type ImportedSet } from './info-labels-import.js';

/** Single files `samples import` takes as they are (CSV becomes CBOR: csvAsCbor). */
export const SINGLE_FILE_EXTENSIONS = ['.wav', '.cbor', '.json'] as const;

/**
 * Recordings (WAV), acquisition files (JSON/CBOR) and CSV files of readings become samples,
 * through the bulk import's reader and batches (core/import/bulk-import.ts): each file is read and
 * hashed once, decoded from those bytes so a broken file is refused here rather than in the sample
 * view, and copied into the data folder (a take from elsewhere becomes the folder's own; a split
 * or crop writes beside it), 256 written and synced together and indexed in one transaction. The
 * copy remembers its source: importing the same file again finds it. A CSV is kept as CBOR, as
 * importCsv keeps it: no source (importing it again adds it again) and its problem under the path
 * as given. `label` undefined = the platform's file-name rule. Results and problems come in the
 * order of `paths`.
 */
export async function importSampleFiles(store: SampleStore, paths: readonly string[], o: { category: Category; label?: string | null; queue: boolean }): Promise<ImportedSet> {
  const problems: Array<{ at: number; path: string; reason: string }> = [];
  const files: string[] = [];
  /** Where each file was in `paths`. */
  const fileAt: number[] = [];
  const taken = new Set<string>();
  let csvs = 0;
  paths.forEach((path, at) => {
    if (/\.csv$/i.test(path)) {
      // As importCsv: read where given (its problems name it so), and the same CSV twice is two samples.
      files.push(path);
      fileAt.push(at);
      csvs++;
      return;
    }
    const full = resolve(path);
    const name = basename(full);
    if (!(SINGLE_FILE_EXTENSIONS as readonly string[]).includes(extname(name).toLowerCase())) {
      problems.push({ at, path: full, reason: `"${name}": single files must be ${SINGLE_FILE_EXTENSIONS.join(', ')} or .csv (a folder or info.labels imports an export).` });
    } else if (!taken.has(full)) {
      taken.add(full);
      files.push(full);
      fileAt.push(at);
    }
  });
  // The decoders (cbor-x, zod) are loaded here, not with the module: `samples import` of an export never needs them.
  const { checkSampleBytes } = await import('../review/decoded.js');
  const encode = csvs > 0 ? (await import('../samples/formats/acquisition.js')).encodeAcquisition : null;
  const outcomes = await importFiles(
    store,
    files,
    {
      category: o.category, label: o.label, metadata: {}, boundingBoxes: [], addDateId: false, allowDuplicates: false, queue: o.queue, copy: true, withSamples: true,
      check: (path, bytes) => readable(checkSampleBytes, path, bytes),
      // Decoded as importCsv decodes it: the --label as given (not trimmed), the words of a bad CSV as they were.
      convert: encode === null ? undefined : {
        applies: (path) => /\.csv$/i.test(path),
        make: (path, bytes) => {
          const made = csvAsCbor(encode, path, bytes.toString('utf8'), o.label === undefined ? {} : { label: o.label });
          return { name: made.name, bytes: made.bytes, sample: { kind: 'sensor', label: made.label, lengthMs: made.lengthMs } };
        },
      },
    },
    () => {},
  );
  // In the order given: a file left out for its extension where it was named, among the others' outcomes.
  outcomes.forEach((r, i) => {
    if (r.status === 'refused') problems.push({ at: fileAt[i]!, path: r.path, reason: r.reason });
  });
  problems.sort((a, b) => a.at - b.at);
  return { ...samplesOf(store, outcomes), problems: problems.map(({ path, reason }) => ({ path, reason })) };
}

/**
 * A file the sample view could not open is refused now, with what is wrong in it. An acquisition
 * JSON file's length is taken from the check (the same rows × interval lengthFromBytes reads, with
 * one parse of the file instead of two); other kinds' lengths are cheap header reads left to it.
 */
function readable(check: typeof import('../review/decoded.js').checkSampleBytes, path: string, bytes: Buffer): string | null | { lengthMs: number } {
  const name = basename(path);
  const kind = fileKind(name) === 'audio' ? 'audio' : 'sensor';
  let read;
  try {
    read = check({ name, kind }, bytes);
  } catch (err) {
    if (kind === 'sensor') {
      const words = notAcquisitionFile(name, err, bytes);
      if (words) return words;
    }
    return `"${name}" is not a readable ${kind === 'audio' ? 'WAV recording' : 'sensor file in the acquisition format'}: ${(err as Error).message}`;
  }
  // lengthFromBytes reads a .json file as JSON text as it is (a byte-order mark or CBOR inside: no length).
  const plainJson = /\.json$/i.test(name) && read.format === 'json' && bytes[0] !== 0xef;
  return plainJson ? { lengthMs: read.rows * read.intervalMs } : null;
}
