import { isAbsolute, join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Sample, SampleState } from '../core/contract.js';
import { defaultDataDir, ensureDataDir } from '../core/data-dir.js';
import { stderrLogger } from '../core/log.js';
import { exportSamples, importCsv, importInfoLabels } from '../core/samples/exchange.js';
import { SampleStore } from '../core/samples/sample-store.js';
import { UsageError } from './args.js';
import { parseCategory } from './options.js';

export const SAMPLES_USAGE = `Usage: capture-desk samples <list|export|import> [options]

  samples list [--json] [--state S] [--data-dir DIR]
      The samples in the data directory; --json prints one JSON object per line.
  samples export --out DIR [--csv] [--state S] [--data-dir DIR]
      Writes the samples in the platform's exchange layout: DIR/<category>/<file> plus
      DIR/info.labels (labels, metadata, bounding boxes, structured labels). --csv writes
      sensor samples as CSV.
  samples import PATH [--queue] [--category C] [--label L] [--data-dir DIR]
      PATH is an info.labels file or a folder holding one (as the platform exports it), or a
      .csv file of readings (becomes a sensor sample). --queue queues them for upload.
`;

export async function samplesCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    process.stdout.write(SAMPLES_USAGE);
    return sub === undefined ? 2 : 0;
  }
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      state: { type: 'string', multiple: true },
      out: { type: 'string' },
      csv: { type: 'boolean' },
      queue: { type: 'boolean' },
      category: { type: 'string' },
      label: { type: 'string' },
      'data-dir': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(SAMPLES_USAGE);
    return 0;
  }
  const states = (values.state ?? []) as SampleState[];
  const valid: SampleState[] = ['local', 'queued', 'uploading', 'uploaded', 'failed', 'rejected'];
  for (const s of states) if (!valid.includes(s)) throw new UsageError(`--state must be one of ${valid.join(', ')}; got "${s}".`);
  const dataDir = await ensureDataDir(values['data-dir'] ?? defaultDataDir());
  const store = await SampleStore.open(dataDir, stderrLogger({ command: 'samples' }));
  try {
    const selected = () => store.list(states.length ? { states } : {});
    if (sub === 'list') {
      for (const s of selected()) process.stdout.write(values.json ? JSON.stringify(describe(s, dataDir)) + '\n' : line(s));
      return 0;
    }
    if (sub === 'export') {
      if (!values.out) throw new UsageError('samples export needs --out DIR.');
      const { files } = await exportSamples(store, selected(), values.out, { csv: Boolean(values.csv) });
      process.stderr.write(`Exported ${files} samples and info.labels to ${values.out}\n`);
      return 0;
    }
    if (sub === 'import') {
      const path = positionals[0];
      if (!path) throw new UsageError('samples import needs a PATH (an info.labels file, its folder, or a .csv file).');
      if (/\.csv$/i.test(path)) {
        const s = await importCsv(store, path, { category: parseCategory(values.category), ...(values.label !== undefined ? { label: values.label } : {}), queue: Boolean(values.queue) });
        process.stdout.write(JSON.stringify(describe(s, dataDir)) + '\n');
        return 0;
      }
      const r = await importInfoLabels(store, path, { queue: Boolean(values.queue) });
      for (const s of r.added) process.stdout.write(JSON.stringify(describe(s, dataDir)) + '\n');
      for (const p of r.problems) process.stderr.write(`not imported ${p.path}: ${p.reason}\n`);
      process.stderr.write(`Imported ${r.added.length} samples${r.problems.length ? `, ${r.problems.length} not imported` : ''}.\n`);
      return r.problems.length ? 1 : 0;
    }
    throw new UsageError(`unknown samples subcommand "${sub}"; use list, export or import.`);
  } finally {
    store.close();
  }
}

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
    metadata: s.metadata,
    structured_labels: s.structuredLabels,
    created: s.created,
    platform: { sample_id: s.platformSampleId, uploaded_at: s.uploadedAt, error: s.error, note: s.note },
    ...s.extra,
  };
}

function line(s: Sample): string {
  return `${s.id}  ${s.state.padEnd(9)} ${(s.category).padEnd(15)} ${(s.label ?? '(unlabeled)').padEnd(16)} ${s.name}${s.error ? `  — ${s.error}` : ''}\n`;
}
