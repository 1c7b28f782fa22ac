import type { ConnectionCheck, ConnectionStep } from '../contract/contract.js';
import { CoreError } from '../errors.js';
import { getDatasetSummary } from './management-client.js';
import { httpPost } from './http-post.js';
import { answerText, htmlAnswer, IngestionError } from './ingestion-errors.js';
import { buildMultipart } from './multipart.js';

export interface CheckInput {
  ingestionUrl: string;
  managementUrl: string;
  projectId: number | null;
  /** null = none found; `apiKeyProblem` then says where we looked. */
  apiKey: string | null;
  apiKeyProblem?: string | null;
  /** Whether an HMAC key is available (it cannot be checked against the platform: only said). */
  hmacKey: 'set' | 'not set' | 'unknown';
  timeoutMs?: number;
}

/**
 * "Is this talking to my project?": the API key, the project id and both services, each said
 * plainly. The management API's project metadata proves key + project; an empty upload to the
 * ingestion service proves its URL takes the key without storing anything (no file, so the
 * platform answers 400 "no files" when the key is good, 401 when it is not).
 */
export async function checkConnection(i: CheckInput): Promise<ConnectionCheck> {
  const steps: ConnectionStep[] = [];
  const add = (s: ConnectionStep) => steps.push(s);
  const keyOk = i.apiKey !== null;
  const projectSet = i.projectId !== null;
  if (!keyOk) add({ part: 'api-key', ok: false, message: i.apiKeyProblem ?? 'No API key is set. Copy it from the project dashboard on the platform (Keys) into Settings → API key.', url: null });
  if (!projectSet) add({ part: 'project', ok: false, message: 'No project id is set. It is the number in the project URL on the platform (…/studio/12345); enter it in Settings.', url: null });

  if (keyOk && projectSet) {
    const url = `${i.managementUrl.replace(/\/+$/, '')}/api/${i.projectId}/raw-data/project-metadata`;
    try {
      const summary = await getDatasetSummary({ managementUrl: i.managementUrl, apiKey: i.apiKey!, projectId: i.projectId! }, AbortSignal.timeout(i.timeoutMs ?? 15_000));
      const c = summary.categories;
      const n = c.training.itemCount + c.testing.itemCount + c.validation.itemCount + c['post-processing'].itemCount;
      add({ part: 'api-key', ok: true, message: 'The management API accepts the API key.', url: null });
      add({ part: 'project', ok: true, message: `Project ${i.projectId} answers: ${n} sample${n === 1 ? '' : 's'} on the platform (training ${c.training.itemCount}, testing ${c.testing.itemCount}).`, url });
    } catch (err) {
      const code = err instanceof CoreError ? err.code : 'Internal';
      const message = (err as Error).message;
      if (code === 'Unauthorized') {
        const status = /\((\d{3})\)/.exec(message)?.[1] ?? '401';
        add({ part: 'api-key', ok: false, message: `The platform refused the API key for project ${i.projectId} (HTTP ${status} from the management API). Check that the key belongs to this project: copy it from the project's dashboard (Keys).`, url });
      }
      else if (code === 'NotFound' || /project/i.test(message)) {
        add({ part: 'api-key', ok: null, message: 'Not confirmed: the project did not answer.', url: null });
        add({ part: 'project', ok: false, message: `Project ${i.projectId} was not found with this key (${message}). Check the project id: it is the number in the project URL.`, url });
      } else add({ part: 'management', ok: false, message: `${message}`, url });
    }
  }

  if (keyOk) {
    const url = `${i.ingestionUrl.replace(/\/+$/, '')}/api/training/files`;
    const probe = buildMultipart([]);
    try {
      const answer = await httpPost(new URL(url), {
        'x-api-key': i.apiKey!, 'content-type': `multipart/form-data; boundary=${probe.boundary}`, 'content-length': probe.length,
      }, probe.chunks, i.timeoutMs ?? 15_000);
      const said = answerText(answer.text);
      // An HTML page (a proxy's, a web site's) is no ingestion service, whatever its status.
      if (said.html) add({ part: 'ingestion', ok: false, message: htmlAnswer(answer.status, said.said), url });
      else if (answer.status === 401) add({ part: 'ingestion', ok: false, message: `The ingestion service refused the API key (401: ${said.said}).`, url });
      else if (answer.status === 400 || answer.status === 200) add({ part: 'ingestion', ok: true, message: 'The ingestion service accepts the API key (a test request with no file; nothing was stored).', url });
      else add({ part: 'ingestion', ok: false, message: `The ingestion service answered ${answer.status} (${said.said || 'no details'}); is this the ingestion URL?`, url });
    } catch (err) {
      add({ part: 'ingestion', ok: false, message: err instanceof IngestionError ? describeNetwork(err, url) : String(err), url });
    }
  }

  add({
    part: 'hmac-key', ok: null, url: null,
    message: i.hmacKey === 'set' ? 'An HMAC key is set: sensor samples are signed (the platform checks the signature).' : i.hmacKey === 'not set' ? 'No HMAC key (optional): sensor samples are sent unsigned.' : 'The HMAC key could not be read from the keychain; samples would be sent unsigned.',
  });
  const failed = steps.filter((s) => s.ok === false);
  return { ok: failed.length === 0, steps, checkedAt: new Date().toISOString() };
}

function describeNetwork(err: IngestionError, url: string): string {
  const host = new URL(url).host;
  if (/CERT|certificate|SSL|TLS/i.test(err.message)) return `The TLS certificate of ${host} could not be verified (${err.message}). Check the ingestion URL (https://…) or the machine's clock.`;
  return err.message;
}
