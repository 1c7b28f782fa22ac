import { parseArgs } from 'node:util';
import type { Classification, ClassifyState, ClassifyVariant } from '../core/contract.js';
import { ClassifyService } from '../core/classify/classify-service.js';
import { defaultDataDir, ensureDataDir } from '../core/data-dir.js';
import { stderrLogger } from '../core/log.js';
import { SampleStore } from '../core/samples/sample-store.js';
import { API_KEY_ENV, ProjectKeys, resolveApiKey } from '../core/secrets/project-keys.js';
import { SettingsStore } from '../core/settings/settings-store.js';
import type { ManagementTarget } from '../core/upload/management-client.js';
import { UsageError } from './args.js';
import { parseIntFlag } from './options.js';

export const CLASSIFY_USAGE = `Usage: capture-desk samples classify ID [options]

  Classifies sample ID with the project's impulse on the platform (classify/v2): the impulse's
  window slides over the sample, and each window gets a score per label. The sample must be
  uploaded (the platform's id of it is what is classified). The result is kept in the data
  directory per sample, impulse and variant: running this again prints the kept result without
  asking the platform (--again asks again). The local sample never changes.

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
  deleted on the platform). While the platform says a classification job is still running, it
  asks again with growing pauses; Ctrl+C stops.
`;

const VARIANTS: readonly ClassifyVariant[] = ['int8', 'float32'];
const ms = (x: number): number => Math.round(x * 1000) / 1000;

export async function samplesClassifyCommand(argv: string[]): Promise<number> {
  const { values: v, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      variant: { type: 'string' },
      'impulse-id': { type: 'string' },
      'management-url': { type: 'string' },
      'project-id': { type: 'string' },
      'api-key': { type: 'string' },
      'data-dir': { type: 'string' },
      again: { type: 'boolean' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (v.help) {
    process.stdout.write(CLASSIFY_USAGE);
    return 0;
  }
  const id = positionals[0];
  if (!id || positionals.length > 1) throw new UsageError('samples classify takes one sample ID (see "capture-desk samples list").');
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

/** Waiting for a job still running is said on stderr; the result goes to stdout. */
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
  const out = [
    `"${name}" (platform sample ${c.platformSampleId}), ${impulse}, ${c.variant}: ${kept ? 'kept result from' : 'classified at'} ${c.classifiedAt}`,
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
  return out.join('\n') + '\n';
}
