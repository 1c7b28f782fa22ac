import type { Classification, ClassifyState, ClassifyVariant } from '../core/contract/contract.js';
import { ClassificationStore } from '../core/classify/classification-store.js';
import { sourceText } from '../core/contract/classify-schema.js';
import { ClassifyService } from '../core/classify/classify-service.js';
import { classifySampleLocally } from '../core/model/classify-sample.js';
import { ModelRegistry } from '../core/model/model-registry.js';
import { modelWorkerSpawner } from '../core/model/model-runner.js';
import { ModelSession } from '../core/model/model-session.js';
import { defaultDataDir, ensureDataDir } from '../core/data-dir.js';
import { stderrLogger } from '../core/log.js';
import { SampleStore } from '../core/samples/sample-store.js';
import { API_KEY_ENV, ProjectKeys, resolveApiKey } from '../core/secrets/project-keys.js';
import { SettingsStore } from '../core/settings/settings-store.js';
import type { ManagementTarget } from '../core/upload/management-client.js';
import { UsageError } from './args.js';
import { booleans, parseCommand, strings } from './flags.js';
import { interruptFlag } from './interrupted.js';
import { parseIntFlag } from './options.js';

export const CLASSIFY_USAGE = `Usage: capture-desk samples classify ID [options]
       capture-desk samples classify ID --model NAME [--stride-ms N] [--threshold X] [--data-dir DIR] [--json]

  Classifies sample ID with the project's impulse on the platform (classify/v2): the impulse's
  window slides over the sample, and each window gets a score per label. The sample must be
  uploaded (the platform's id of it is what is classified). The result is kept in the data
  directory per sample, impulse and variant: running this again prints the kept result without
  asking the platform (--again asks again). The local sample never changes.

  With --model NAME it is classified on this computer instead, by a model added with
  "capture-desk model add": no upload, no network, no project settings or key. Windows of the
  model's length start at i × stride from the sample's start (resampled to the model's rate when
  the sample's differs by more than 1 %). The result is kept with the sample like the platform's
  (the app's bands, "Model says" and its filter show it, "on this computer: NAME"), replacing
  what this build of the model said before; it is classified anew each time.

  --model NAME             classify here with this added model (see "capture-desk model list")
  --stride-ms N            with --model: a window starts every N ms (default: a quarter window)
  --threshold X            with --model: a top score below X is "uncertain" (default 0.6)

  --variant int8|float32   the model variant (default: the one remembered for the project in the
                           app, else int8)
  --impulse-id N           the impulse to use (default: the remembered one, else the project's
                           default impulse)
  --management-url URL     management API, ending in /v1 (default: from settings)
  --project-id N           the project's id (default: from settings)
  --api-key K              project API key (default: $${API_KEY_ENV}, then the OS keychain)
  --data-dir DIR           data directory (default: ${defaultDataDir()})
  --again                  ask the platform even when a result is kept
  --json                   one JSON line per window:
                             {"start_ms","end_ms","label","confidence","scores":{label:score}}
                           (label = the highest score; "block" = the learn block's name when the
                           impulse has several; "anomaly" when it has an anomaly block), then per
                           learn block {"summary":true,"windows","by_label":{label:count},
                           "expected":LABEL,"agree":N,"classified_at","kept"}

  Exit 0 when classified; 1 with the platform's message otherwise (no impulse trained yet, an
  impulse that cannot classify this kind of data, the key refused, the sample not uploaded or
  deleted on the platform). When the platform answers with a classification job instead, it
  waits for that job (its status asked after 1, 2, 4… s, for up to three minutes), then asks for
  the result once more, never starting a second job; Ctrl+C stops. With --model: exit 1 with a sentence for a model
  not added, a sample whose axes or rate the model cannot take (the numbers said), or one
  shorter than a window; Ctrl+C stops and keeps nothing.
`;

const VARIANTS: readonly ClassifyVariant[] = ['int8', 'float32'];
const ms = (x: number): number => Math.round(x * 1000) / 1000;

export async function samplesClassifyCommand(argv: string[]): Promise<number> {
  const parsed = parseCommand(argv, CLASSIFY_USAGE, {
    ...strings('variant', 'impulse-id', 'management-url', 'project-id', 'api-key', 'data-dir', 'model', 'stride-ms', 'threshold'),
    ...booleans('again', 'json'),
  }, { positionals: true });
  if (!parsed) return 0;
  const { values: v, positionals } = parsed;
  const id = positionals[0];
  if (!id || positionals.length > 1) throw new UsageError('samples classify takes one sample ID (see "capture-desk samples list").');
  if (v.model !== undefined) {
    const platformOnly = (['variant', 'impulse-id', 'management-url', 'project-id', 'api-key', 'again'] as const).filter((k) => v[k] !== undefined);
    if (platformOnly.length) throw new UsageError(`${platformOnly.map((k) => `--${k}`).join(', ')} ${platformOnly.length === 1 ? 'is' : 'are'} for the platform's impulse; --model classifies on this computer.`);
    const strideMs = v['stride-ms'] === undefined ? null : parseIntFlag('--stride-ms', v['stride-ms'], 0, 1, 600_000);
    // A blank --threshold is refused, not read as Number("") = 0.
    const threshold = v.threshold === undefined ? 0.6 : v.threshold.trim() === '' ? NaN : Number(v.threshold);
    if (!(threshold >= 0 && threshold <= 1)) throw new UsageError(`--threshold must be a number from 0 to 1; got "${v.threshold}".`);
    return classifyHere(id, v.model, { strideMs, threshold, json: v.json ?? false, dataDir: v['data-dir'] });
  }
  if (v['stride-ms'] !== undefined || v.threshold !== undefined) throw new UsageError('--stride-ms and --threshold go with --model NAME (a model on this computer); the platform\'s impulse has its own.');
  if (v.variant !== undefined && !(VARIANTS as readonly string[]).includes(v.variant)) throw new UsageError(`--variant must be int8 or float32; got "${v.variant}".`);
  const variant = v.variant as ClassifyVariant | undefined;
  const impulseId = v['impulse-id'] === undefined ? undefined : parseIntFlag('--impulse-id', v['impulse-id'], 0, 1, 2 ** 31 - 1);
  const url = v['management-url'];
  if (url !== undefined && !/^https?:\/\/[^\s/]+/i.test(url)) throw new UsageError(`--management-url must be an http:// or https:// URL; got "${url}".`);

  const dataDir = await ensureDataDir(v['data-dir'] ?? defaultDataDir());
  const log = stderrLogger({ command: 'samples classify' });
  const settings = await SettingsStore.open(dataDir, log);
  const s = settings.get();
  const projectId = v['project-id'] === undefined ? s.projectId : parseIntFlag('--project-id', v['project-id'], 0, 1, Number.MAX_SAFE_INTEGER);
  const management = async (): Promise<ManagementTarget> => {
    if (projectId === null) throw new UsageError('No project id: pass --project-id N (the number in the project URL on the platform) or set it in the app\'s Settings.');
    // The keychain loads only when neither the flag nor the environment gives the key.
    const given = v['api-key'] !== undefined || (process.env[API_KEY_ENV] ?? '').trim() !== '';
    const keys = given ? undefined : new ProjectKeys((await import('../core/secrets/keychain.js')).keytarKeychain());
    const { key } = await resolveApiKey({ flag: v['api-key'], projectId, keys });
    return { managementUrl: url ?? s.managementUrl, apiKey: key, projectId };
  };

  const store = await SampleStore.open(dataDir, log);
  const svc = new ClassifyService({ store, settings, management, log, emit: (e) => say(e) });
  const stop = (): void => {
    svc.cancel(id);
  };
  process.once('SIGINT', stop);
  try {
    const request = { variant, impulseId };
    const sample = store.get(id);
    const kept = v.again ? null : svc.classification(id, request, projectId);
    let c: Classification;
    if (kept) {
      c = kept;
      process.stderr.write(`Kept result from ${kept.classifiedAt}; nothing was asked of the platform (--again asks again).\n`);
    } else {
      const target = await management();
      c = await svc.classify(id, request, { target });
    }
    process.stdout.write(v.json ? jsonLines(c, kept !== null) : human(c, sample.name, kept !== null));
    return 0;
  } finally {
    process.off('SIGINT', stop);
    await store.close({ foldJournal: false });
  }
}

/**
 * --model: the sample classified on this computer by an added model, kept with it. Needs nothing
 * of the platform: no settings are read, no key is looked for.
 */
async function classifyHere(id: string, model: string, o: { strideMs: number | null; threshold: number; json: boolean; dataDir: string | undefined }): Promise<number> {
  const dataDir = await ensureDataDir(o.dataDir ?? defaultDataDir());
  const log = stderrLogger({ command: 'samples classify' });
  const store = await SampleStore.open(dataDir, log);
  const interrupt = interruptFlag();
  try {
    const sample = store.get(id);
    const spawn = modelWorkerSpawner();
    const session = await ModelSession.open(new ModelRegistry(dataDir, spawn, log), model, spawn, log);
    let c: Classification;
    try {
      c = await classifySampleLocally(store, session, sample, { strideMs: o.strideMs, threshold: o.threshold, progress: () => !interrupt.stopped });
    } finally {
      await session.close();
    }
    new ClassificationStore(store.db).keep(c);
    process.stdout.write(o.json ? jsonLines(c, false) : human(c, sample.name, false));
    return 0;
  } finally {
    interrupt.release();
    await store.close({ foldJournal: false });
  }
}

/** Waiting for the platform's classification job is said on stderr; the result goes to stdout. */
function say(e: ClassifyState): void {
  if (e.state === 'waiting' && e.message) process.stderr.write(`${e.message}\n`);
}

function jsonLines(c: Classification, kept: boolean): string {
  const several = c.blocks.length > 1;
  const lines: string[] = [];
  for (const b of c.blocks) {
    for (const w of b.windows) {
      lines.push(JSON.stringify({
        start_ms: ms(w.startMs), end_ms: ms(w.endMs), label: w.label, confidence: w.confidence, scores: w.scores,
        ...(several ? { block: b.name } : {}),
        ...(b.hasAnomaly ? { anomaly: w.anomaly } : {}),
      }));
    }
  }
  for (const b of c.blocks) {
    const m = b.summary;
    lines.push(JSON.stringify({
      summary: true, windows: m.windows, by_label: m.byLabel, expected: m.expected, agree: m.agree,
      ...(several ? { block: b.name } : {}),
      classified_at: c.classifiedAt, kept,
    }));
  }
  return lines.join('\n') + '\n';
}

function human(c: Classification, name: string, kept: boolean): string {
  const impulse = c.impulseId === null ? "the project's default impulse" : `impulse ${c.impulseId}`;
  const made = `${kept ? 'kept result from' : 'classified at'} ${c.classifiedAt}`;
  const out = [
    c.local
      ? `"${name}", ${sourceText(c)} (build ${c.local.hash.slice(0, 12)}, uncertain below ${c.local.threshold}): ${made}`
      : `"${name}" (platform sample ${c.platformSampleId}), ${impulse}, ${c.variant}: ${made}`,
    `Windows of ${c.windowSizeMs} ms every ${c.windowIncreaseMs} ms over ${ms(c.lengthMs)} ms:`,
  ];
  for (const b of c.blocks) {
    if (c.blocks.length > 1) out.push(`Learn block ${b.name}:`);
    for (const w of b.windows) {
      const span = `${ms(w.startMs)}–${ms(w.endMs)} ms`.padStart(20);
      const conf = w.confidence === null ? '' : w.confidence.toFixed(2);
      const extra = [w.uncertain ? 'uncertain' : '', w.anomaly === null ? '' : `anomaly ${w.anomaly.toFixed(2)}`].filter(Boolean).join(', ');
      out.push(`${span}  ${(w.label ?? '-').padEnd(16)} ${conf}${extra ? `  (${extra})` : ''}`);
    }
    out.push(`${c.blocks.length > 1 ? `${b.name}: ` : ''}${b.summary.text}`);
  }
  if (c.warning) out.push(`Warning from the platform: ${c.warning}`);
  if (c.alreadyInDatabase) out.push('The platform says this sample is already in its training data: the model may have learnt from it.');
  if (c.local) out.push(`Kept with the sample; the app shows it as "${sourceText(c)}".`);
  return out.join('\n') + '\n';
}
