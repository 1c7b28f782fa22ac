import { stat } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import type { Sample, SampleState } from '../core/contract/contract.js';
import { recoverRecordings } from '../core/capture/recording-recovery.js';
import { MAX_FREQUENCY_HZ, setSampleRate } from '../core/capture/set-rate.js';
import { defaultDataDir, ensureDataDir } from '../core/data-dir.js';
import { stderrLogger } from '../core/log.js';
import { importInfoLabels, type ImportedSet } from '../core/import/info-labels-import.js';
import { exportSamples, importCsv } from '../core/samples/exchange.js';
import { importSampleFiles, SINGLE_FILE_EXTENSIONS } from '../core/import/single-files.js';
import { SampleStore } from '../core/samples/sample-store.js';
import { UsageError } from './args.js';
import { GROUPS, groupPreamble } from './groups.js';
import { booleans, parseCommand, strings } from './flags.js';
import { describe } from './sample-json.js';
import { parseCategory, parseLabel } from './options.js';

export const SAMPLES_USAGE = `Usage: capture-desk samples <list|export|import|set-rate|recover|split|classify> [options]

  samples list [--json] [--state S] [--data-dir DIR]
      The samples in the data directory; --json prints one JSON object per line.
  samples export --out DIR [--csv] [--state S] [--data-dir DIR]
      Writes the samples in the platform's exchange layout: DIR/<category>/<file> plus
      DIR/info.labels (labels, metadata, bounding boxes, structured labels). --csv writes
      sensor samples as CSV.
  samples import PATH... [--queue] [--copy] [--category C] [--label L] [--data-dir DIR] [--json]
      Each PATH is an info.labels file or a folder holding one (as the platform exports it):
      its files are indexed where they lie, like upload (--copy copies them into the data
      folder instead, so the export can go; slower); a .csv file of readings (becomes a
      sensor sample); or a single sample file (.wav, .cbor, .json), copied into the data folder.
      Prints one JSON line per new sample; a file imported before (same path and content) is
      found, not added twice. --queue queues them for upload.
  samples set-rate ID --frequency HZ [--hmac-key K] [--data-dir DIR] [--json]
      Gives a sample kept without its sampling rate (its note says "rate unknown") the rate it
      was recorded at: it is written again in the acquisition format with that interval, signed
      with --hmac-key when given, and can then be queued or uploaded.
  samples recover [--hmac-key K] [--data-dir DIR] [--json]
      Turns recordings left in the recordings folder (the app or a command stopped mid-capture,
      or the disk was full) into incomplete samples now, rather than at the app's next start.
  samples split ID --auto [--window-ms N] [--threshold X] [--min-gap-ms N] [--dry-run] [--data-dir DIR]
      One new sample per event found in sample ID (see "samples split --help").
  samples classify ID [--variant int8|float32] [--impulse-id N] [--management-url URL]
                  [--project-id N] [--api-key K] [--data-dir DIR] [--again] [--json]
      Classifies an uploaded sample with the project's impulse on the platform, window by
      window, and keeps the result (see "samples classify --help").
  samples classify ID --model NAME [--stride-ms N] [--threshold X] [--data-dir DIR] [--json]
      Classifies a sample here with a model added by "capture-desk model add": no upload, no
      network; the result is kept with the sample like the platform's.

  Exit 0 on success; 1 when something could not be done (import: a PATH not imported, missing
  or not a type it takes); 2 for a command-line mistake.
`;

export async function samplesCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  // Before the data directory is opened: an unknown word must not create one.
  const early = groupPreamble(GROUPS.samples, argv, SAMPLES_USAGE);
  if (early !== null || sub === undefined) return early ?? 2;
  if (sub === 'split') return (await import('./samples-split.js')).samplesSplitCommand(rest);
  if (sub === 'classify') return (await import('./samples-classify.js')).samplesClassifyCommand(rest);
  const parsed = parseCommand(rest, SAMPLES_USAGE, {
    state: { type: 'string', multiple: true },
    ...booleans('json', 'csv', 'queue', 'copy'),
    ...strings('out', 'category', 'label', 'frequency', 'hmac-key', 'data-dir'),
  }, { positionals: true });
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  const states = (values.state ?? []) as SampleState[];
  const valid: SampleState[] = ['local', 'queued', 'uploading', 'uploaded', 'failed', 'rejected'];
  for (const s of states) if (!valid.includes(s)) throw new UsageError(`--state must be one of ${valid.join(', ')}; got "${s}".`);
  // Before the data directory is opened: `samples list extra` was run as `samples list`.
  if ((sub === 'list' || sub === 'export' || sub === 'recover') && positionals.length) {
    throw new UsageError(`samples ${sub} takes no arguments; got "${positionals[0]}".`);
  }
  const givenLabel = parseLabel(values.label, 'refused'); // before the data directory too
  const dataDir = await ensureDataDir(values['data-dir'] ?? defaultDataDir());
  const store = await SampleStore.open(dataDir, stderrLogger({ command: 'samples' }));
  // An import indexes thousands of files, as `upload` does, and is tuned as it is (upload-run.ts):
  // what it records can be re-derived by running it again (a file imported before is found), so
  // its commits skip the fsync (WAL survives kill -9; a power cut may drop the last commits, which
  // a re-run restores), the journal is folded in once by the next open, and the page cache fits
  // the index of a big run. Copies of single files are on disk before their rows exist, as always
  // (synced a batch at a time: SampleStore.addCopies).
  const bulk = sub === 'import';
  if (bulk) {
    store.db.pragma('synchronous = NORMAL');
    store.db.pragma('wal_autocheckpoint = 0');
    store.db.pragma('cache_size = -32768');
  }
  try {
    const selected = () => store.list(states.length ? { states } : {});
    if (sub === 'list') {
      for (const s of selected()) process.stdout.write(values.json ? JSON.stringify(describe(s, dataDir)) + '\n' : line(s));
      return 0;
    }
    if (sub === 'export') {
      if (!values.out) throw new UsageError('samples export needs --out DIR.');
      const { files, kept } = await exportSamples(store, selected(), values.out, { csv: Boolean(values.csv) });
      const had = kept > 0 ? ` (it keeps the ${kept === 1 ? 'entry' : `${kept} entries`} it had)` : '';
      process.stderr.write(`Exported ${files} ${files === 1 ? 'sample' : 'samples'} and info.labels${had} to ${values.out}\n`);
      return 0;
    }
    if (sub === 'import') {
      if (!positionals.length) throw new UsageError('samples import needs a PATH (an info.labels file, its folder, a .csv file, or a .wav, .cbor or .json sample).');
      const category = parseCategory(values.category);
      const label = givenLabel ? { label: givenLabel } : {};
      const print = (s: Sample) => process.stdout.write(JSON.stringify(describe(s, dataDir)) + '\n');
      // Thousands of lines: one write per batch, not one per line.
      const printAll = (list: Sample[]) => {
        for (let i = 0; i < list.length; i += 500) process.stdout.write(list.slice(i, i + 500).map((s) => JSON.stringify(describe(s, dataDir)) + '\n').join(''));
      };
      let added = 0;
      let known = 0;
      let failed = 0;
      const report = (r: ImportedSet) => {
        printAll(r.added);
        for (const p of r.problems) process.stderr.write(`not imported ${p.path}: ${p.reason}\n`);
        added += r.added.length;
        known += r.known.length;
        failed += r.problems.length;
      };
      // Every PATH is tried: one bad file among many is reported, not a reason to drop the rest.
      // Single files next to each other (CSV files too) go through the bulk reader together, in
      // their order. A CSV alone is imported on its own, its error the command's.
      const single = (p: string) => isSingleFile(p) || (/\.csv$/i.test(p) && positionals.length > 1);
      for (let i = 0; i < positionals.length;) {
        const path = positionals[i]!;
        try {
          if (/\.csv$/i.test(path) && positionals.length === 1) {
            i++;
            print(await importCsv(store, path, { category, ...label, queue: Boolean(values.queue) }));
            added++;
          } else if (single(path)) {
            let j = i;
            while (j < positionals.length && single(positionals[j]!)) j++;
            const run = positionals.slice(i, j);
            i = j;
            report(await importSampleFiles(store, run, { category, ...label, queue: Boolean(values.queue) }));
          } else {
            i++;
            const why = await notAnExport(path);
            if (why) throw new Error(positionals.length === 1 ? `${path}: ${why}` : why);
            report(await importInfoLabels(store, path, { queue: Boolean(values.queue), copy: Boolean(values.copy) }));
          }
        } catch (err) {
          if (positionals.length === 1) throw err;
          process.stderr.write(`not imported ${path}: ${(err as Error).message}\n`);
          failed++;
        }
      }
      const already = known ? `, ${known} already in this data folder (same file, same content)` : '';
      process.stderr.write(`Imported ${added} samples${already}${failed ? `, ${failed} not imported` : ''}.\n`);
      return failed ? 1 : 0;
    }
    if (sub === 'set-rate') {
      const [id, ...more] = positionals;
      if (!id || more.length) throw new UsageError('samples set-rate needs one sample ID (see "samples list").');
      if (values.frequency === undefined) throw new UsageError(`--frequency HZ is required: the board's sampling rate in hertz, above 0 and at most ${MAX_FREQUENCY_HZ}.`);
      const hz = values.frequency.trim() === '' ? NaN : Number(values.frequency);
      // Given but out of range (1e6) is not "required": say the range it must be in.
      if (!(hz > 0 && hz <= MAX_FREQUENCY_HZ)) throw new UsageError(`--frequency must be a number of hertz above 0 and at most ${MAX_FREQUENCY_HZ}; got "${values.frequency}".`);
      const s = await setSampleRate(store, id, hz, values['hmac-key']);
      process.stdout.write(values.json ? JSON.stringify(describe(s, dataDir)) + '\n' : line(s));
      process.stderr.write(`Sample ${s.id} now has ${hz} Hz (${s.extra['rows']} rows, ${Math.round(s.lengthMs ?? 0)} ms)${values['hmac-key'] ? ', signed' : ''}${s.incomplete ? '; it is still incomplete (cut short while recording)' : ''}.\n`);
      return 0;
    }
    if (sub === 'recover') {
      const key = values['hmac-key'];
      const recovered = await recoverRecordings(store, stderrLogger({ command: 'samples recover' }), async () => key);
      for (const s of recovered) process.stdout.write(values.json ? JSON.stringify(describe(s, dataDir)) + '\n' : line(s));
      process.stderr.write(`Recovered ${recovered.length} recordings into samples.\n`);
      return 0;
    }
    return 2; // every sub-command is handled above (groupPreamble refused the others)
  } finally {
    await store.close({ foldJournal: !bulk });
  }
}

/**
 * Why `path` (neither a .csv nor a single sample file) cannot be an export, or null if it may be:
 * importInfoLabels looks for PATH/info.labels, so a missing path or a .png was said as "No
 * info.labels at /nonexist/info.labels", as if the folder were there.
 */
async function notAnExport(path: string): Promise<string | null> {
  const s = await stat(path).catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' || err.code === 'ENOTDIR' ? null : Promise.reject(err)));
  if (!s) return 'no such file or folder.';
  if (s.isDirectory() || basename(path).toLowerCase() === 'info.labels') return null;
  return `not a file samples import takes: an info.labels file or its folder, a .csv file of readings, or a ${SINGLE_FILE_EXTENSIONS.slice(0, -1).join(', ')} or ${SINGLE_FILE_EXTENSIONS.at(-1)} sample.`;
}

function isSingleFile(path: string): boolean {
  return (SINGLE_FILE_EXTENSIONS as readonly string[]).includes(extname(path).toLowerCase());
}

function line(s: Sample): string {
  return `${s.id}  ${s.state.padEnd(9)} ${(s.category).padEnd(15)} ${(s.label ?? '(unlabeled)').padEnd(16)} ${s.name}${s.error ? `  — ${s.error}` : ''}\n`;
}
