import { CoreError } from '../errors.js';
import { ManagementError, managementCall, type ManagementTarget } from '../upload/management-client.js';
import { RawClassifyAnswer } from './classify-result.js';
import type { ClassifyVariant } from './classify-schema.js';

/** Why a classification did not come back, for code (the UI and the CLI branch on it); the message is for people. */
export type ClassifyReason =
  | 'not-uploaded' | 'no-project' | 'unauthorized' | 'project-not-found' | 'deleted' | 'no-impulse' | 'impulse-not-found'
  | 'cannot-classify' | 'job-running' | 'cancelled' | 'unreachable' | 'platform';

export interface ClassifyErrorDetails {
  reason: ClassifyReason;
  /** The platform's own words, when it answered with an error. */
  platformMessage: string | null;
}

export class ClassifyError extends CoreError {
  override name = 'ClassifyError';
  declare readonly details: ClassifyErrorDetails;
}

export type PlatformAnswer = { kind: 'classified'; answer: RawClassifyAnswer } | { kind: 'running'; message: string };

/** What a failure says about the sample and the call, so its message can say what to do. */
export interface FailureContext {
  name: string;
  platformSampleId: number;
  projectId: number;
  impulseId: number | null;
}

/**
 * The platform's error texts are not a documented vocabulary (spec, Errors rule 4), so they are
 * recognised by their words; anything unrecognised is passed on as the platform said it.
 */
export function reasonOf(platformMessage: string): ClassifyReason {
  const m = platformMessage;
  if (/still running|job (is )?(still )?(running|in progress)|in progress|try again/i.test(m)) return 'job-running';
  if (/project not found|no such project|unknown project/i.test(m)) return 'project-not-found';
  if (/impulse\b.*\bnot found|no impulse with id/i.test(m)) return 'impulse-not-found';
  if (/sample\b.*\b(not found|does not exist|deleted)|no such sample/i.test(m)) return 'deleted';
  if (/no (trained )?impulse|impulse (has )?not (been |yet )?trained|not (been |yet )?trained|train (the|an|your) impulse|no learn blocks?/i.test(m)) return 'no-impulse';
  if (/cannot classify|can't classify|unable to classify|not supported|does not match|incompatible|mismatch/i.test(m)) return 'cannot-classify';
  return 'platform';
}

/** The message for a reason: what happened, in the platform's words where it gave some, and what to do. */
export function classifyError(reason: ClassifyReason, c: FailureContext, platformMessage: string | null = null): ClassifyError {
  const said = platformMessage ? ` (the platform said: "${platformMessage}")` : '';
  const impulse = c.impulseId === null ? "the project's default impulse" : `impulse ${c.impulseId}`;
  const [code, message]: [CoreError['code'], string] = (() => {
    switch (reason) {
      case 'no-impulse':
        return ['Unavailable', `Project ${c.projectId} has no trained impulse yet${said}. Design and train an impulse on the platform, then classify again.`];
      case 'impulse-not-found':
        return ['NotFound', `Project ${c.projectId} has no impulse ${c.impulseId ?? ''}${said}. Check the impulse id, or leave it empty for the project's default impulse.`];
      case 'cannot-classify':
        return ['InvalidArguments', `${cap(impulse)} cannot classify "${c.name}"${said}: it was made for another kind of data (other sensors, axes or audio). Classify a sample of the kind the impulse was trained on, or choose another impulse id.`];
      case 'deleted':
        return ['NotFound', `"${c.name}" is no longer on the platform (sample ${c.platformSampleId})${said}: it was deleted there. Upload it again to classify it; the local sample is unchanged.`];
      case 'project-not-found':
        return ['NotFound', `The platform has no project ${c.projectId} for this API key${said}. Check the project id and the API key in Settings.`];
      case 'unauthorized':
        return ['Unauthorized', `The platform refused the API key (401)${said}. Check the API key of project ${c.projectId} in Settings (the CLI: --api-key or $CAPTURE_DESK_API_KEY).`];
      case 'job-running':
        return ['Busy', `The platform is still classifying "${c.name}"${said}, and did not finish while Capture Desk kept asking. Classify again in a minute.`];
      case 'cancelled':
        return ['Cancelled', `Classifying "${c.name}" was cancelled; nothing was kept.`];
      default:
        return ['Unavailable', `The platform could not classify "${c.name}"${said}.`];
    }
  })();
  return new ClassifyError(code, message, { reason, platformMessage } satisfies ClassifyErrorDetails);
}

const cap = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * POST /api/{projectId}/classify/v2/{sampleId}?variant=…[&impulseId=…]. A job still running is
 * not a failure but an answer to come back later: said as an error by the spec's envelope, or
 * (as the platform can also answer) as a started job without classifications.
 */
export async function classifyOnPlatform(
  t: ManagementTarget, c: FailureContext, variant: ClassifyVariant, signal: AbortSignal, timeoutMs = 120_000,
): Promise<PlatformAnswer> {
  const query = new URLSearchParams({ variant, ...(c.impulseId === null ? {} : { impulseId: String(c.impulseId) }) });
  let body: unknown;
  try {
    body = await managementCall(t, 'POST', `/api/${t.projectId}/classify/v2/${c.platformSampleId}?${query}`, undefined, AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]));
  } catch (err) {
    if (signal.aborted) throw classifyError('cancelled', c);
    if (!(err instanceof ManagementError)) throw err;
    if (err.code === 'Unauthorized') throw classifyError('unauthorized', c);
    if (err.platformMessage !== null) {
      const reason = reasonOf(err.platformMessage);
      if (reason === 'job-running') return { kind: 'running', message: err.platformMessage };
      throw classifyError(reason, c, err.platformMessage);
    }
    throw new ClassifyError(err.code, err.message, { reason: err.code === 'Unavailable' ? 'unreachable' : 'platform', platformMessage: null } satisfies ClassifyErrorDetails);
  }
  const o = body as Record<string, unknown>;
  if (!('classifications' in o) && typeof o['id'] === 'number') return { kind: 'running', message: `The platform started classification job ${o['id']}` };
  const parsed = RawClassifyAnswer.safeParse(body);
  if (!parsed.success) {
    throw new ClassifyError('Internal', 'The platform answered the classification in a shape this version does not understand; update Capture Desk.', { reason: 'platform', platformMessage: null } satisfies ClassifyErrorDetails);
  }
  if (parsed.data.classifications.length === 0) throw classifyError('no-impulse', c, 'no classifications in the answer');
  return { kind: 'classified', answer: parsed.data };
}
