import type { Sample, SampleQueryFilter } from '../core/contract/contract.js';
import type { ModelEntry } from '../core/contract/model-schema.js';
import { ClassificationStore } from '../core/classify/classification-store.js';
import { defaultDataDir, ensureDataDir } from '../core/data-dir.js';
import { CoreError } from '../core/errors.js';
import { fixedAndBroken, pairTested } from '../core/evaluate/model-comparison.js';
import { modelReport, type ModelKind, type Report } from '../core/evaluate/model-report.js';
import { stderrLogger } from '../core/log.js';
import { defaultModelWorkers, MAX_MODEL_WORKERS, ModelPool } from '../core/model/model-pool.js';
import { ModelRegistry } from '../core/model/model-registry.js';
import { modelWorkerSpawner } from '../core/model/model-runner.js';
import { fitForTest, samplesIn, testableKinds, testSamples, toTested, type TestedSample } from '../core/model/model-test.js';
import { idsMatching } from '../core/samples/sample-query.js';
import { SampleStore } from '../core/samples/sample-store.js';
import { UsageError } from './args.js';
import { interruptFlag } from './interrupted.js';
import { booleans, parseCommand, strings } from './flags.js';
import { humanReport, humanTwo } from './model-test-output.js';
import { parseIntFlag } from './options.js';

export const MODEL_TEST_USAGE = `Usage: capture-desk model test --model NAME [--model NAME2] [--category testing|training|all]
           [--label L] [--stride-ms N] [--threshold X] [--workers N] [--data-dir DIR] [--json]

  How good is an added model on the samples here, label by label, before anything is uploaded:
  every sample of the category (default testing; with --label, of that label) is classified
  window by window as "samples classify --model" does (window k starts at k × stride from the
  sample's start, whole windows only), and its prediction compared with its label.

  A window's verdict is its top label when that score is at least --threshold, else "uncertain"
  (two labels sharing the top score are "uncertain" too). A sample's prediction is the verdict
  most of its windows got; a tie, or "uncertain" being the most frequent, is "uncertain", which
  is never correct. A sample shorter than one window, whose label is not one of the model's, or
  whose sensor, axes or rate the model cannot take is "unfit": listed with the reason, not counted.

  Every result is kept with its sample (the app's "Model says" shows it). A sample already
  classified by the same build of the model, at the same stride and threshold, with the same
  content is not classified again: its kept result is used (stderr says how many).

  --model NAME       an added model (see "capture-desk model list"); give it twice to compare two
  --category C       testing (default), training or all
  --label L          only samples of label L
  --stride-ms N      a window starts every N ms (default: a quarter window)
  --threshold X      a top score below X is "uncertain" (default 0.6)
  --workers N        model workers; each sample runs whole in one of them (default: one per
                     core, at most 4; 1 to ${MAX_MODEL_WORKERS})
  --data-dir DIR     data directory (default: ${defaultDataDir()})
  --json             one JSON line per counted sample, in the order the samples were added:
                       {"sample_id","label","predicted","windows","correct"}
                     then one per unfit sample {"sample_id","unfit":"<reason>"}, then
                       {"summary":{"samples","accuracy","uncertain","unfit",
                        "per_label":{L:{"precision","recall","f1","support"}},
                        "confusion":{actual:{predicted:count}}}}
                     Figures are rounded to 4 places; "confusion" has a row per label with
                     samples, a column per label of the model and "uncertain" where it occurs.
                     Precision, recall and F1 are 0 where they would divide by zero.
                     A regression model: "predicted" is the mean of its windows' values and
                     "error" (predicted − label) replaces "correct"; the summary has "samples",
                     "mae", "rmse", "unfit". A model with an anomaly block adds "anomaly" (the
                     highest of the sample's windows) to each line and to the summary
                     "anomaly":{L:{"min","median","max","samples"}}.
                     Two models A and B: each line holds both, keyed by model name:
                       {"sample_id","label","predicted":{A,B},"windows":{A,B},"correct":{A,B}}
                     a sample unfit for either is unfit for the comparison; the summary is
                       {"summary":{"samples","unfit","models":{A:{"accuracy","uncertain",
                        "per_label","confusion"},B:{…}},"fixed":[ids],"broken":[ids]}}
                     "fixed": samples B gets right and A got wrong; "broken": the reverse.

  Without --json: the confusion matrix as a table, the per-label figures, the samples it got
  wrong and the unfit ones.

  Exit 0 when the test ran, whatever the accuracy; 1 when no sample could be counted (or the
  model cannot run); 2 for a command-line mistake (a threshold outside 0 to 1, an unknown
  category, a stride below 1 ms). Ctrl+C stops; samples classified so far
  keep their results.
`;

const CATEGORIES = ['testing', 'training', 'all'] as const;

interface TestArgs {
  models: string[];
  category: (typeof CATEGORIES)[number];
  label: string | undefined;
  strideMs: number | null;
  threshold: number;
  workers: number;
  dataDir: string;
  json: boolean;
}

function parse(argv: string[]): TestArgs | null {
  // The shared parse: help wins over any mistake, and mistakes are said in plain sentences.
  const parsed = parseCommand(argv, MODEL_TEST_USAGE, {
    model: { type: 'string', multiple: true },
    ...strings('category', 'label', 'stride-ms', 'threshold', 'workers', 'data-dir'),
    ...booleans('json'),
  }, { positionals: true });
  if (!parsed) return null;
  const { values: v, positionals } = parsed;
  if (positionals.length) throw new UsageError(`model test takes no arguments (got "${positionals[0]}"); name the model with --model NAME.`);
  const models = v.model ?? [];
  if (models.length === 0) throw new UsageError('model test needs --model NAME: an added model (see "capture-desk model list").');
  if (models.length > 2) throw new UsageError(`model test compares at most two models; got ${models.length} --model flags.`);
  if (models.length === 2 && models[0] === models[1]) throw new UsageError(`--model "${models[0]}" was given twice: name two different models to compare them.`);
  const category = v.category ?? 'testing';
  if (!(CATEGORIES as readonly string[]).includes(category)) throw new UsageError(`--category must be testing, training or all; got "${category}".`);
  let strideMs: number | null = null;
  if (v['stride-ms'] !== undefined) {
    strideMs = Number(v['stride-ms']);
    if (v['stride-ms'].trim() === '' || !Number.isFinite(strideMs) || strideMs <= 0) throw new UsageError(`--stride-ms must be a positive number of milliseconds; got "${v['stride-ms']}".`);
    // As samples classify: a stride below 1 ms (1e-300) made billions of windows per sample and
    // ran at full CPU for as long as anyone waited.
    if (strideMs < 1) throw new UsageError(`--stride-ms must be at least 1 millisecond; got "${v['stride-ms']}".`);
  }
  const threshold = v.threshold === undefined ? 0.6 : Number(v.threshold);
  if (v.threshold?.trim() === '' || !(threshold >= 0 && threshold <= 1)) throw new UsageError(`--threshold must be a number from 0 to 1; got "${v.threshold}".`);
  if (v.label === '') throw new UsageError('--label needs a label; leave it out to test every label.');
  return {
    models,
    category: category as TestArgs['category'],
    label: v.label,
    strideMs,
    threshold,
    workers: parseIntFlag('--workers', v.workers, defaultModelWorkers(), 1, MAX_MODEL_WORKERS),
    dataDir: v['data-dir'] ?? defaultDataDir(), // made absolute by parseCommand
    json: v.json ?? false,
  };
}

export async function modelTestCommand(argv: string[]): Promise<number> {
  const a = parse(argv);
  if (!a) return 0;
  const dataDir = await ensureDataDir(a.dataDir);
  const log = stderrLogger({ command: 'model test' });
  const spawn = modelWorkerSpawner();
  const registry = new ModelRegistry(dataDir, spawn, log);
  const entries: ModelEntry[] = [];
  for (const name of a.models) entries.push(await fitForTest(registry, name, a.strideMs));
  const kinds = testableKinds(entries);
  // The first model's workers start now, while the index opens and kept results are looked up.
  const first = await ModelPool.of(registry, entries[0]!.name, spawn, log, a.workers);
  first.warm();
  let store: SampleStore;
  try {
    store = await SampleStore.open(dataDir, log);
  } catch (err) {
    await first.close();
    throw err;
  }
  const interrupt = interruptFlag();
  try {
    const filter: SampleQueryFilter = { ...(a.category === 'all' ? {} : { categories: [a.category] }), ...(a.label === undefined ? {} : { labels: [a.label] }) };
    const samples: Sample[] = samplesIn(store, idsMatching(store.db, filter, { sort: { by: 'created', dir: 'asc' } }));
    const kept = new ClassificationStore(store.db);
    const runs: TestedSample[][] = [];
    for (const [k, entry] of entries.entries()) {
      const pool = k === 0 ? first : await ModelPool.of(registry, entry.name, spawn, log, a.workers);
      try {
        const tested = await testSamples({ store, kept, pool, strideMs: a.strideMs, threshold: a.threshold, progress: () => !interrupt.stopped, signal: interrupt.signal }, samples);
        const reused = tested.filter((t) => t.unfit === undefined && t.reused).length;
        const classified = tested.filter((t) => t.unfit === undefined && !t.reused).length;
        process.stderr.write(`Model "${entry.name}": classified ${classified} ${classified === 1 ? 'sample' : 'samples'} (${pool.classified} windows) in ${pool.used} ${pool.used === 1 ? 'worker' : 'workers'}; ${reused} kept ${reused === 1 ? 'result' : 'results'} of the same build, stride, threshold and sample content used as ${reused === 1 ? 'it was' : 'they were'}.\n`);
        runs.push(tested);
      } finally {
        await pool.close();
      }
    }
    const what = `${a.category === 'all' ? '' : `${a.category} `}samples${a.label === undefined ? '' : ` labelled "${a.label}"`}`;
    const counted = entries.length === 1 ? one(a, entries[0]!, kinds[0]!, runs[0]!, what) : two(a, entries, kinds, runs, what);
    if (counted === 0) {
      process.stderr.write(samples.length === 0
        ? `There are no ${what} in ${dataDir}: nothing to test. Import or record some (or choose another --category or --label).\n`
        : `None of the ${samples.length} ${what} could be counted: every one is unfit for the model (the reasons are listed above).\n`);
      return 1;
    }
    return 0;
  } finally {
    await first.close(); // closed already unless the run ended before it was used
    interrupt.release();
    await store.close({ foldJournal: false });
  }
}

const names = (samples: readonly Sample[]): Map<string, string> => new Map(samples.map((s) => [s.id, s.name]));

function one(a: TestArgs, entry: ModelEntry, kind: ModelKind, tested: TestedSample[], what: string): number {
  const r = modelReport(kind, tested.map(toTested), a.threshold);
  if (a.json) {
    const out = [...r.samples, ...r.unfit, { summary: r.summary }].map((l) => JSON.stringify(l));
    process.stdout.write(out.join('\n') + '\n');
  } else {
    process.stdout.write(humanReport(entry, kind, r, { what, threshold: a.threshold, strideMs: a.strideMs ?? entry.description.windowMs / 4, names: names(tested.map((t) => t.sample)) }));
  }
  return r.predictions.size;
}

/** Two models on the same samples: a sample unfit for either is left out of both, so both are judged on the same ones. */
function two(a: TestArgs, entries: ModelEntry[], kinds: ModelKind[], runs: TestedSample[][], what: string): number {
  const [ea, eb] = entries as [ModelEntry, ModelEntry];
  const [ra, rb] = runs as [TestedSample[], TestedSample[]];
  const [ta, tb] = pairTested([ea.name, eb.name], [ra.map(toTested), rb.map(toTested)]);
  const A = modelReport(kinds[0]!, ta, a.threshold);
  const B = modelReport(kinds[1]!, tb, a.threshold);
  const { fixed, broken } = fixedAndBroken(A, B);
  const lines: Array<Record<string, unknown>> = [];
  const windowsOf = (r: Report): Map<unknown, unknown> => new Map(r.samples.map((s) => [s['sample_id'], s['windows']]));
  const [wa, wb] = [windowsOf(A), windowsOf(B)];
  for (const [id, pa] of A.predictions) {
    const pb = B.predictions.get(id)!;
    lines.push({
      sample_id: id, label: pa.label,
      predicted: { [ea.name]: pa.predicted, [eb.name]: pb.predicted },
      windows: { [ea.name]: wa.get(id), [eb.name]: wb.get(id) },
      correct: { [ea.name]: pa.correct, [eb.name]: pb.correct },
    });
  }
  const figures = (r: Report): Record<string, unknown> => {
    const { samples: _s, unfit: _u, ...rest } = r.summary;
    return rest;
  };
  const summary = { samples: A.predictions.size, unfit: A.unfit.length, models: { [ea.name]: figures(A), [eb.name]: figures(B) }, fixed, broken };
  if (a.json) {
    process.stdout.write([...lines, ...A.unfit, { summary }].map((l) => JSON.stringify(l)).join('\n') + '\n');
  } else {
    process.stdout.write(humanTwo([ea, eb], [kinds[0]!, kinds[1]!], [A, B], { what, threshold: a.threshold, fixed, broken, names: names(ra.map((t) => t.sample)), strideMs: a.strideMs }));
  }
  return A.predictions.size;
}
