import { z } from 'zod';
import type { Category, DatasetSummary } from '../contract/contract.js';
import { CoreError } from '../errors.js';
import { answerText, htmlAnswer } from './ingestion-errors.js';

export interface ManagementTarget {
  /** Ends in the version prefix, e.g. https://studio.example.com/v1 */
  managementUrl: string;
  apiKey: string;
  projectId: number;
}

/** A management call that answered `success: false`, or could not be read. */
export class ManagementError extends CoreError {
  override name = 'ManagementError';
  /** The platform's own words when it answered `success: false` (for callers that tell its errors apart). */
  platformMessage: string | null = null;
  /** The HTTP status of the answer, when there was one. */
  status: number | null = null;
}

const Envelope = z.object({ success: z.boolean(), error: z.string().optional() }).passthrough();

const LabelSummary = z.object({ label: z.string(), totalLength: z.number().optional(), dataCount: z.number().optional() }).passthrough();
const CategorySummary = z
  .object({ itemCount: z.number().optional(), totalLengthNumber: z.number().optional(), labels: z.array(LabelSummary).optional() })
  .passthrough();
const MetadataAnswer = z.object({
  metadata: z
    .object({
      ratio: z.object({ hasValidationCategory: z.boolean().optional() }).passthrough().optional(),
      training: CategorySummary.optional(),
      testing: CategorySummary.optional(),
      validation: CategorySummary.optional(),
      postProcessing: CategorySummary.optional(),
    })
    .passthrough(),
});

/** GET /api/{projectId}/raw-data/project-metadata, reduced to what the class-balance view needs. */
export async function getDatasetSummary(t: ManagementTarget, signal?: AbortSignal): Promise<DatasetSummary> {
  const body = await call(t, 'GET', `/api/${t.projectId}/raw-data/project-metadata`, undefined, signal);
  const parsed = MetadataAnswer.safeParse(body);
  if (!parsed.success) throw new ManagementError('Internal', 'The platform answered the dataset summary in a shape this version does not understand; update Capture Desk.');
  const m = parsed.data.metadata;
  const cat = (c: z.infer<typeof CategorySummary> | undefined) => ({
    itemCount: c?.itemCount ?? 0,
    totalLengthMs: c?.totalLengthNumber ?? 0,
    labels: (c?.labels ?? []).map((l) => ({ label: l.label, count: l.dataCount ?? 0, totalLengthMs: l.totalLength ?? 0 })),
  });
  return {
    hasValidation: m.ratio?.hasValidationCategory ?? false,
    categories: { training: cat(m.training), testing: cat(m.testing), validation: cat(m.validation), 'post-processing': cat(m.postProcessing) },
  };
}

/** POST /api/{projectId}/raw-data/{sampleId}/move */
export async function moveSample(t: ManagementTarget, sampleId: number, newCategory: Exclude<Category, 'split'>): Promise<void> {
  await call(t, 'POST', `/api/${t.projectId}/raw-data/${sampleId}/move`, { newCategory });
}

/** POST /api/{projectId}/devices/{deviceId}/rename (plural "devices" in this path, as the spec says). */
export async function renameDevice(t: ManagementTarget, deviceId: string, name: string): Promise<void> {
  await call(t, 'POST', `/api/${t.projectId}/devices/${encodeURIComponent(deviceId)}/rename`, { name });
}

/** One management call: the envelope checked, failures as ManagementError (the classification client builds on it). */
export const managementCall = (t: ManagementTarget, method: 'GET' | 'POST', path: string, json?: unknown, signal?: AbortSignal): Promise<unknown> =>
  call(t, method, path, json, signal);

async function call(t: ManagementTarget, method: 'GET' | 'POST', path: string, json?: unknown, signal?: AbortSignal): Promise<unknown> {
  const url = t.managementUrl.replace(/\/+$/, '') + path;
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: { 'x-api-key': t.apiKey, accept: 'application/json', ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
      signal: signal ?? AbortSignal.timeout(30_000),
    });
  } catch (err) {
    // fetch says only "fetch failed"; the reason (refused, DNS, a certificate) is in its cause.
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (err as Error).message;
    const tls = /CERT|SSL|TLS|certificate/i.test(`${cause?.code ?? ''} ${cause?.message ?? ''}`);
    throw new ManagementError('Unavailable', tls
      ? `The TLS certificate of ${new URL(url).host} could not be verified (${why}). Check the management URL (https://…) and the machine's clock.`
      : `Could not reach the management API at ${new URL(url).host} (${why}). Check the network and the management URL in Settings.`);
  }
  const text = await res.text();
  if (res.status === 401 || res.status === 403) {
    const e = new ManagementError('Unauthorized', `The management API refused the API key (${res.status}). Check the key and the project id in Settings.`);
    e.status = res.status;
    throw e;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    const said = answerText(text);
    throw new ManagementError('Internal', said.html ? htmlAnswer(res.status, said.said, 'management') : `The management API answered ${res.status} with something that is not JSON: ${said.said}`);
  }
  const env = Envelope.safeParse(body);
  if (!env.success) throw new ManagementError('Internal', `The management API answered ${res.status} without the success/error envelope.`);
  if (!env.data.success) {
    const why = env.data.error ?? 'no reason given';
    const e = new ManagementError(/not found/i.test(why) ? 'NotFound' : 'InvalidArguments', `The platform refused: ${why}`);
    e.platformMessage = env.data.error ?? null;
    e.status = res.status;
    throw e;
  }
  return body;
}
