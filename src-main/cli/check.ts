import type { ConnectionCheck, ConnectionStep } from '../core/contract/contract.js';
import { CoreError } from '../core/errors.js';
import { defaultDataDir, ensureDataDir } from '../core/data-dir.js';
import { stderrLogger } from '../core/log.js';
import { keytarKeychain } from '../core/secrets/keychain.js';
import { ProjectKeys, resolveApiKey } from '../core/secrets/project-keys.js';
import { SettingsStore } from '../core/settings/settings-store.js';
import { checkConnection } from '../core/upload/connection-check.js';
import { UsageError } from './args.js';
import { booleans, parseCommand, strings } from './flags.js';
import { parseIntFlag } from './options.js';

export const CHECK_USAGE = `Usage: capture-desk check [options]

"Is this talking to my project?" Checks the API key, the project id, the management API and the
ingestion service, and says plainly what worked and what did not. Nothing is uploaded. Options not
given come from the settings in the data directory and the OS keychain, as the app uses them.
Exit 0 when the key, the project and the ingestion URL answer as expected; 1 otherwise (the output
names the failing part: "API key", "project", the management or ingestion URL).

Options:
  --ingestion-url URL    ingestion service (default: from settings)
  --management-url URL   management API, ending in /v1 (default: from settings)
  --project-id N         the project's id, the number in its URL on the platform (default: from settings)
  --api-key K            project API key (default: $CAPTURE_DESK_API_KEY, then the OS keychain)
  --data-dir DIR         data directory (default: ${defaultDataDir()})
  --json                 one JSON object: {"ok", "steps": [{"part", "ok", "message", "url"}]}
  -h, --help             show this help
`;

const PART_NAMES: Record<ConnectionStep['part'], string> = {
  'api-key': 'API key', project: 'project', management: 'management API', ingestion: 'ingestion service', 'hmac-key': 'HMAC key',
};

export async function checkCommand(argv: string[]): Promise<number> {
  const parsed = parseCommand(argv, CHECK_USAGE, {
    ...strings('ingestion-url', 'management-url', 'project-id', 'api-key', 'data-dir'),
    ...booleans('json'),
  });
  if (!parsed) return 0;
  const { values: v } = parsed;
  for (const flag of ['ingestion-url', 'management-url'] as const) {
    const url = v[flag];
    if (url !== undefined && !/^https?:\/\/[^\s/]+/i.test(url)) throw new UsageError(`--${flag} must be an http:// or https:// URL; got "${url}".`);
  }
  const dataDir = await ensureDataDir(v['data-dir'] ?? defaultDataDir());
  const settings = (await SettingsStore.open(dataDir, stderrLogger({ command: 'check' }))).get();
  const projectId = v['project-id'] === undefined ? settings.projectId : parseIntFlag('--project-id', v['project-id'], 0, 1, Number.MAX_SAFE_INTEGER);
  const keys = new ProjectKeys(keytarKeychain());
  const api = await resolveApiKey({ flag: v['api-key'], projectId, keys }).then(
    (r) => ({ key: r.key, problem: null }),
    (err: unknown) => {
      if (err instanceof CoreError && err.code === 'InvalidArguments') throw new UsageError(err.message);
      return { key: null, problem: (err as Error).message };
    },
  );
  const hmac = process.env.CAPTURE_DESK_HMAC_KEY ? 'set' : await keys.getHmacKey(projectId).then((k): 'set' | 'not set' => (k ? 'set' : 'not set'), (): 'unknown' => 'unknown');
  const report = await checkConnection({
    ingestionUrl: v['ingestion-url'] ?? settings.ingestionUrl,
    managementUrl: v['management-url'] ?? settings.managementUrl,
    projectId,
    apiKey: api.key,
    apiKeyProblem: api.problem,
    hmacKey: hmac,
  });
  process.stdout.write(v.json ? JSON.stringify(report) + '\n' : human(report));
  return report.ok ? 0 : 1;
}

function human(r: ConnectionCheck): string {
  const lines = r.steps.map((s) => `${s.ok === true ? 'ok  ' : s.ok === false ? 'FAIL' : '--  '} ${PART_NAMES[s.part]}: ${s.message}${s.url && s.ok === false ? ` [${s.url}]` : ''}`);
  const failed = r.steps.filter((s) => s.ok === false).map((s) => PART_NAMES[s.part]);
  lines.push(r.ok ? 'Connected: this data directory talks to the project.' : `Not connected: fix the ${failed.join(', ')} (see above).`);
  return lines.join('\n') + '\n';
}
