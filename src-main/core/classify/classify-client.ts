import { z } from 'zod';
import { CoreError } from '../errors.js';
import { ManagementError, managementCall, type ManagementTarget } from '../upload/management-client.js';
import { RawClassifyAnswer } from './classify-result.js';
import type { ClassifyVariant } from '../contract/classify-schema.js';

/** Why a classification did not come back, for code (the UI and the CLI branch on it); the message is for people. */
export type ClassifyReason =
  | 'not-uploaded' | 'no-project' | 'unauthorized' | 'project-not-found' | 'deleted' | 'no-impulse' | 'impulse-not-found'
  | 'cannot-classify' | 'job-running' | 'job-failed' | 'cancelled' | 'unreachable' | 'platform';

export interface ClassifyErrorDetails {
  reason: ClassifyReason;
  /** The platform's own words, when it answered with an error. */
  platformMessage: string | null;
}

export class ClassifyError extends CoreError {
  override name = 'ClassifyError';
  declare readonly details: ClassifyErrorDetails;
}

/**
 * classify/v2's two declared answers (edge-impulse-api: `ClassifySampleResponse | StartJobResponse`):
 * the classifications, or a job it started; "wait for the completion of the job, and then call
 * this function again to receive the results".
 */
export type PlatformAnswer = { kind: 'classified'; answer: RawClassifyAnswer } | { kind: 'job'; jobId: number };

/** A job's state from GET /api/{projectId}/jobs/{jobId}/status (declared GetJobResponse.job). */
export interface JobState {
  finished: boolean;
  /** finishedSuccessful; null while running, or when the platform did not say. */
  successful: boolean | null;
}

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
        return ['Busy', `The platform is still classifying "${c.name}"${said}, and its job did not finish while Capture Desk waited. Classify again in a minute: Capture Desk waits for that job rather than starting another.`];
      case 'job-failed':
        return ['Unavailable', `The platform's classification job for "${c.name}" ended without a result${said}. Classify again; if it fails again, look at the job's log on the platform.`];
      case 'cancelled':
        return ['Cancelled', `Classifying "${c.name}" was cancelled; nothing was kept.`];
      default:
        return ['Unavailable', `The platform could not classify "${c.name}"${said}.`];
    }
  })();
  return new ClassifyError(code, message, { reason, platformMessage } satisfies ClassifyErrorDetails);
}

const cap = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** A management call's failure in the classification's terms (cancelled, key refused, the platform's words). */
function failureOf(err: unknown, c: FailureContext, signal: AbortSignal): unknown {
  if (signal.aborted) return classifyError('cancelled', c);
  if (!(err instanceof ManagementError)) return err;
  if (err.code === 'Unauthorized') return classifyError('unauthorized', c);
  if (err.platformMessage !== null) return classifyError(reasonOf(err.platformMessage), c, err.platformMessage);
  return new ClassifyError(err.code, err.message, { reason: err.code === 'Unavailable' ? 'unreachable' : 'platform', platformMessage: null } satisfies ClassifyErrorDetails);
}

const shapeError = (what: string): ClassifyError =>
  new ClassifyError('Internal', `The platform answered ${what} in a shape this version does not understand; update Capture Desk.`, { reason: 'platform', platformMessage: null } satisfies ClassifyErrorDetails);

/** Declared windowSizeMs/windowIncreaseMs are numbers: only what cannot place a window is refused, saying the value. */
function unusableWindow(a: RawClassifyAnswer): string | null {
  for (const [field, v] of [['windowSizeMs', a.windowSizeMs], ['windowIncreaseMs', a.windowIncreaseMs]] as const) {
    if (!Number.isFinite(v) || v <= 0) return `${field} ${v}`;
  }
  return null;
}

/**
 * POST /api/{projectId}/classify/v2/{sampleId}?variant=…[&impulseId=…]: the classifications, or
 * the id of a job the platform started (StartJobResponse: `{success: true, id}`) to wait for.
 */
export async function classifyOnPlatform(
  t: ManagementTarget, c: FailureContext, variant: ClassifyVariant, signal: AbortSignal, timeoutMs = 120_000,
): Promise<PlatformAnswer> {
  const query = new URLSearchParams({ variant, ...(c.impulseId === null ? {} : { impulseId: String(c.impulseId) }) });
  let body: unknown;
  try {
    body = await managementCall(t, 'POST', `/api/${t.projectId}/classify/v2/${c.platformSampleId}?${query}`, undefined, AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]));
  } catch (err) {
    throw failureOf(err, c, signal);
  }
  const o = body as Record<string, unknown>;
  if (!('classifications' in o) && typeof o['id'] === 'number' && Number.isInteger(o['id'])) return { kind: 'job', jobId: o['id'] };
  const parsed = RawClassifyAnswer.safeParse(body);
  if (!parsed.success) throw shapeError('the classification');
  const bad = unusableWindow(parsed.data);
  if (bad !== null) {
    throw new ClassifyError('Unavailable', `The platform answered ${bad} for "${c.name}": no window can be placed with that, so nothing was kept. Check the impulse's window size and increase on the platform.`, { reason: 'platform', platformMessage: null } satisfies ClassifyErrorDetails);
  }
  if (parsed.data.classifications.length === 0) throw classifyError('no-impulse', c, 'no classifications in the answer');
  return { kind: 'classified', answer: parsed.data };
}

const JobAnswer = z.object({
  job: z.object({ id: z.number(), finished: z.unknown().optional(), finishedSuccessful: z.boolean().nullable().optional() }).passthrough(),
}).passthrough();

/** GET /api/{projectId}/jobs/{jobId}/status: finished once `job.finished` is set. */
export async function jobStatus(t: ManagementTarget, c: FailureContext, jobId: number, signal: AbortSignal, timeoutMs = 30_000): Promise<JobState> {
  let body: unknown;
  try {
    body = await managementCall(t, 'GET', `/api/${t.projectId}/jobs/${jobId}/status`, undefined, AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]));
  } catch (err) {
    throw failureOf(err, c, signal);
  }
  const parsed = JobAnswer.safeParse(body);
  if (!parsed.success) throw shapeError(`the status of job ${jobId}`);
  const j = parsed.data.job;
  const finished = j.finished !== undefined && j.finished !== null;
  return { finished, successful: finished ? (j.finishedSuccessful ?? null) : null };
}
