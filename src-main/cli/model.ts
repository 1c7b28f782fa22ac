import { defaultDataDir, ensureDataDir } from '../core/data-dir.js';
import { commandLogger } from './command-log.js';
import { ModelRegistry } from '../core/model/model-registry.js';
import { modelWorkerSpawner } from '../core/model/model-runner.js';
import { ModelName, type ModelEntry } from '../core/contract/model-schema.js';
import { UsageError } from './args.js';
import { GROUPS, groupPreamble } from './groups.js';
import { booleans, parseCommand, strings } from './flags.js';
import { parseIntFlag } from './options.js';

const NAME_RULE = 'a model name is 1-64 letters (A-Z, a-z), digits, ".", "-" or "_", not starting with "."';

export const MODEL_USAGE = `Usage: capture-desk model <add|list|info|set-axes|remove|test> [options]

  The project's model, exported from the platform's deployment page as "WebAssembly", run on
  this computer: "classify live" runs it on a board or microphone, "samples classify --model"
  on samples already here.

  model add PATH [--name NAME] [--axes N] [--data-dir DIR] [--json]
      PATH is the export's .zip, its unpacked folder, or the edge-impulse-standalone.js inside
      it. Its two files are copied into the data folder (models/NAME/), started once, described
      and checked by classifying a window of zeros. NAME defaults to the zip's or folder's name.
      Builds from before 2022 do not say how many axes a window holds: --axes N says it (a
      microphone model is one axis); without it the model is kept with axes "unknown" and a
      source must say them before it runs. An --axes the model contradicts is refused.
      NAME is 1-64 letters (A-Z, a-z), digits, ".", "-" or "_", not starting with ".".
  model list [--json] [--data-dir DIR]
  model info NAME [--json] [--data-dir DIR]
  model set-axes NAME --axes N [--data-dir DIR] [--json]
      Says how many axes a model added with axes "unknown" takes (or corrects what was given),
      without adding it again. A model that says its axes itself keeps them (a microphone
      model says one): another number is refused, the same one changes nothing.
  model remove NAME [--data-dir DIR]
  model test --model NAME [--model NAME2] [--category testing|training|all] [--label L]
             [--stride-ms N] [--threshold X] [--workers N] [--data-dir DIR] [--json]
      Classifies every local sample of the category with the model and compares its answers
      with their labels: the confusion matrix, precision, recall and F1 per label, the unfit
      samples and why; two models side by side. See "capture-desk model test --help".

  --verbose also writes the log (one JSON line per event) to stderr.

  Exit 0 on success; 1 with a sentence saying what is wrong (nothing is left half-added);
  2 for a command-line mistake.
`;

export async function modelCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const early = groupPreamble(GROUPS.model, argv, MODEL_USAGE);
  if (early !== null || sub === undefined) return early ?? 2;
  if (sub === 'test') return (await import('./model-test.js')).modelTestCommand(rest);
  const parsed = parseCommand(rest, MODEL_USAGE, { ...strings('name', 'axes', 'data-dir'), ...booleans('json', 'verbose') }, { positionals: true });
  if (!parsed) return 0;
  const { values: v, positionals } = parsed;
  // The data folder is made only once the command line has been checked: a mistake in it
  // must leave nothing behind, not even an empty folder.
  const open = async (): Promise<ModelRegistry> =>
    new ModelRegistry(await ensureDataDir(v['data-dir'] ?? defaultDataDir()), modelWorkerSpawner(), commandLogger(`model ${sub}`, Boolean(v.verbose)));
  const one = (what: string): string => {
    if (positionals.length !== 1) throw new UsageError(`model ${sub} takes one ${what}.`);
    return positionals[0]!;
  };
  switch (sub) {
    case 'add': {
      const path = one('PATH (the export\'s .zip, folder or .js)');
      const axes = v.axes === undefined ? undefined : parseIntFlag('--axes', v.axes, 0, 1, 64);
      // A bad --name is a command-line mistake: said before the model is started, not after.
      if (v.name !== undefined && !ModelName.safeParse(v.name).success) {
        throw new UsageError(`--name ${v.name === '' ? 'is empty' : `"${v.name}" cannot name a model`}: ${NAME_RULE}. Choose another name.`);
      }
      const registry = await open();
      if (!v.json) process.stderr.write(`Starting the model from ${path}…\n`);
      const m = await registry.add(path, { name: v.name, axes });
      process.stdout.write(v.json ? JSON.stringify(toJson(m)) + '\n' : `Added model "${m.name}".\n${describeText(m)}`);
      return 0;
    }
    case 'list': {
      if (positionals.length) throw new UsageError('model list takes no arguments.');
      // A model whose model.json is damaged is listed too, by name, with what is wrong: left out,
      // it was invisible here yet blocked adding its name again.
      const { models: all, unreadable: broken } = await (await open()).listAll();
      if (v.json) {
        for (const m of all) process.stdout.write(JSON.stringify(toJson(m)) + '\n');
        for (const b of broken) process.stdout.write(JSON.stringify({ name: b.name, status: 'unreadable', problem: b.problem }) + '\n');
      } else if (!all.length && !broken.length) process.stdout.write('No models added. Add one with: capture-desk model add EXPORT.zip\n');
      else {
        for (const m of all) process.stdout.write(`${m.name.padEnd(24)} ${summary(m)}${m.status === 'ready' ? '' : `  [${m.status}]`}\n`);
        for (const b of broken) process.stdout.write(`${b.name.padEnd(24)} [unreadable] ${b.problem}\n`);
      }
      return 0;
    }
    case 'info': {
      const name = one('NAME');
      const m = await (await open()).get(name);
      process.stdout.write(v.json ? JSON.stringify(toJson(m)) + '\n' : `Model "${m.name}"\n${describeText(m)}`);
      return m.status === 'missing' || m.status === 'changed' ? 1 : 0;
    }
    case 'set-axes': {
      const name = one('NAME');
      if (v.axes === undefined) throw new UsageError('model set-axes needs --axes N (how many axes a window holds; a microphone model is one).');
      const axes = parseIntFlag('--axes', v.axes, 0, 1, 64);
      const m = await (await open()).setAxes(name, axes);
      const n = `${m.description.axes} ${m.description.axes === 1 ? 'axis' : 'axes'}`;
      // The number the model states itself is what it keeps (the help's rule), so asking for it succeeds, changing nothing.
      const said = m.description.axesFrom === 'model' ? `Model "${m.name}" already takes ${n}: the model says so itself.` : `Model "${m.name}" takes ${n} now.`;
      process.stdout.write(v.json ? JSON.stringify(toJson(m)) + '\n' : `${said}\n${describeText(m)}`);
      return 0;
    }
    case 'remove': {
      const name = one('NAME');
      await (await open()).remove(name);
      process.stdout.write(`Removed model "${name}".\n`);
      return 0;
    }
  }
  return 2;
}

function summary(m: ModelEntry): string {
  const d = m.description;
  const axes = d.axes === null ? 'axes unknown' : `${d.axes} ${d.axes === 1 ? 'axis' : 'axes'}`;
  return `${d.sensor}, ${d.frequencyHz} Hz, ${d.windowMs} ms windows, ${axes}, labels ${d.labels.join(', ') || '(none)'}`;
}

function describeText(m: ModelEntry): string {
  const d = m.description;
  const lines = [
    `  sensor            ${d.sensor} (${d.sensorCode})`,
    `  frequency         ${d.frequencyHz} Hz`,
    `  window            ${d.windowMs} ms (${d.frameSampleCount} samples per axis)`,
    `  axes              ${d.axes ?? `unknown: this build does not say; give it with "capture-desk model set-axes ${m.name} --axes N", or answer when a source asks`}${d.axesFrom === 'given' ? ' (given)' : ''}`,
    `  floats per window ${d.floatsPerWindow ?? 'unknown'}`,
    `  labels            ${d.labels.join(', ') || '(none)'}`,
    `  anomaly block     ${d.hasAnomaly ? 'yes' : 'no'}`,
    `  model type        ${d.modelType ?? 'not said (build before 2022)'}`,
    `  build             ${d.hasInit ? 'newer (init)' : 'older (no init)'}, continuous mode ${d.continuous ? `yes (slice of ${d.sliceFloats} floats)` : 'no'}`,
    ...(d.project ? [`  project           ${d.project.name ?? '?'} (id ${d.project.id ?? '?'}, deploy ${d.project.deployVersion ?? '?'})`] : []),
    `  start / window    ${d.startMs} ms to start, ${d.classifyMs} ms per window here`,
    `  files             ${m.js.name} (${m.js.bytes} bytes), ${m.wasm.name} (${m.wasm.bytes} bytes); hash ${m.hash.slice(0, 16)}`,
    `  added             ${m.addedAt} from ${m.source}`,
  ];
  if (m.problem) lines.push(`  problem           ${m.problem}`);
  return lines.join('\n') + '\n';
}

function toJson(m: ModelEntry): Record<string, unknown> {
  const d = m.description;
  return {
    name: m.name, status: m.status, problem: m.problem, hash: m.hash, added_at: m.addedAt, source: m.source,
    sensor: d.sensor, sensor_code: d.sensorCode, frequency_hz: d.frequencyHz, window_ms: d.windowMs, frame_sample_count: d.frameSampleCount,
    axes: d.axes, axes_from: d.axesFrom, floats_per_window: d.floatsPerWindow, labels: d.labels, has_anomaly: d.hasAnomaly,
    model_type: d.modelType, init: d.hasInit, continuous: d.continuous, slice_floats: d.sliceFloats, project: d.project,
    start_ms: d.startMs, classify_ms: d.classifyMs,
    files: { js: m.js, wasm: m.wasm },
  };
}
