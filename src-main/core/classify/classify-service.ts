import type { ClassifyState, Sample, Settings } from '../contract/contract.js';
import { CoreError, toWireError } from '../errors.js';
import type { Logger } from '../log.js';
import type { SampleStore } from '../samples/sample-store.js';
import type { ManagementTarget } from '../upload/management-client.js';
import { ClassificationStore } from './classification-store.js';
import { ClassifyError, classifyError, classifyOnPlatform, jobStatus, type ClassifyErrorDetails, type FailureContext } from './classify-client.js';
import { digestOf, readClassification } from './classify-result.js';
import type { Classification, ClassificationDigest, ClassifyOptions, ClassifyTarget, ClassifyVariant, CollectSummary } from '../contract/classify-schema.js';
import { collectSummary } from './collect-summary.js';

export interface ClassifyBackoff {
  /** First wait before asking about a job the platform started; doubles each time. */
  baseMs: number;
  maxMs: number;
  /** Stop waiting (and fail with Busy) once this much time has passed; the job is waited for on the next try. */
  giveUpMs: number;
}

export const DEFAULT_BACKOFF: ClassifyBackoff = { baseMs: 1000, maxMs: 15_000, giveUpMs: 3 * 60_000 };

export interface ClassifyServiceDeps {
  store: SampleStore;
  /** The settings (the remembered targets and the capture option live there). */
  settings: { get(): Settings; set(patch: Partial<Settings>): Promise<Settings> };
  /** Management URL, key and project id; throws a CoreError saying what is missing. */
  management(): Promise<ManagementTarget>;
  /** Progress and results (the app sends them as samples.classifyState events; the CLI prints them). */
  emit?(state: ClassifyState): void;
  /** Samples whose kept results changed (the app re-announces them so tables refetch). */
  announce?(ids: string[]): void;
  log: Logger;
  backoff?: Partial<ClassifyBackoff>;
  now?: () => Date;
  /** How long one request may take (the platform classifies long samples for a while). */
  requestTimeoutMs?: number;
}

export interface ClassifyRequest {
  variant?: ClassifyVariant | undefined;
  impulseId?: number | null | undefined;
}

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });

/**
 * "Does the model get it right?": classifies uploaded samples on the platform, keeps the results,
 * and classifies takes after their upload when the capture option says so.
 */
export class ClassifyService {
  readonly kept: ClassificationStore;
  readonly #d: ClassifyServiceDeps;
  readonly #backoff: ClassifyBackoff;
  readonly #running = new Map<string, AbortController>();
  /**
   * Jobs the platform started for a classification and not yet seen finished (its target, sample,
   * impulse and variant → job id): kept over a cancel or a give-up, so the next try waits for
   * that job instead of starting another.
   */
  readonly #jobs = new Map<string, number>();
  readonly #startedAt: string;
  /** Takes classified after upload go one at a time, in the order their uploads were confirmed. */
  #autoChain: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(d: ClassifyServiceDeps) {
    this.#d = d;
    this.kept = new ClassificationStore(d.store.db);
    this.#backoff = { ...DEFAULT_BACKOFF, ...d.backoff };
    this.#startedAt = this.#now();
  }

  #now(): string {
    return (this.#d.now?.() ?? new Date()).toISOString();
  }

  // ---------- options ----------

  options(projectId: number | null = this.#d.settings.get().projectId): ClassifyOptions {
    const s = this.#d.settings.get();
    const t = this.#remembered(projectId);
    return { projectId, variant: t.variant, impulseId: t.impulseId, afterUpload: s.classifyAfterUpload };
  }

  #remembered(projectId: number | null): ClassifyTarget {
    const t = projectId === null ? undefined : this.#d.settings.get().classifyTargets[String(projectId)];
    return t ?? { variant: 'int8', impulseId: null };
  }

  async setOptions(patch: { variant?: ClassifyVariant | undefined; impulseId?: number | null | undefined; afterUpload?: ClassifyOptions['afterUpload'] | undefined }): Promise<Settings> {
    const s = this.#d.settings.get();
    const next: Partial<Settings> = {};
    if (patch.afterUpload !== undefined) next.classifyAfterUpload = patch.afterUpload;
    if (patch.variant !== undefined || patch.impulseId !== undefined) {
      if (s.projectId === null) throw new CoreError('InvalidArguments', 'Set the project ID in Settings first: the variant and impulse id are remembered per project.');
      const t = this.#remembered(s.projectId);
      next.classifyTargets = {
        ...s.classifyTargets,
        [String(s.projectId)]: { variant: patch.variant ?? t.variant, impulseId: patch.impulseId === undefined ? t.impulseId : patch.impulseId },
      };
    }
    return this.#d.settings.set(next);
  }

  /** Variant and impulse id: as asked, else as remembered for the project, else int8 and the default impulse. */
  target(r: ClassifyRequest, projectId: number | null = this.#d.settings.get().projectId): ClassifyTarget {
    const t = this.#remembered(projectId);
    return { variant: r.variant ?? t.variant, impulseId: r.impulseId === undefined ? t.impulseId : r.impulseId };
  }

  // ---------- classify ----------

  /** The sample (NotFound when it is not in the data folder). */
  sample(id: string): Sample {
    return this.#d.store.get(id);
  }

  /** The kept result, without asking the platform; null when there is none for the sample as it is on the platform now. */
  classification(id: string, r: ClassifyRequest = {}, projectId?: number | null): Classification | null {
    const s = this.#d.store.get(id);
    const t = this.target(r, projectId);
    return this.kept.get(id, t.impulseId, t.variant, s.platformSampleId);
  }

  cancel(id: string): boolean {
    const c = this.#running.get(id);
    if (!c) return false;
    c.abort();
    return true;
  }

  isClassifying(id: string): boolean {
    return this.#running.has(id);
  }

  async classify(id: string, r: ClassifyRequest = {}, opts: { auto?: boolean; target?: ManagementTarget } = {}): Promise<Classification> {
    const auto = opts.auto ?? false;
    const s = this.#d.store.get(id);
    if (this.#running.has(id)) throw new CoreError('Busy', `"${s.name}" is being classified already; wait for that result or cancel it.`);
    const controller = new AbortController();
    this.#running.set(id, controller);
    let t = this.target(r, opts.target?.projectId);
    let attempt = 0;
    const say = (e: Omit<ClassifyState, 'id' | 'auto' | 'impulseId' | 'variant' | 'attempt'>): void =>
      this.#d.emit?.({ id, auto, impulseId: t.impulseId, variant: t.variant, attempt, ...e });
    let ctx: FailureContext | null = null;
    try {
      if (s.platformSampleId === null) {
        const why = s.state === 'uploaded'
          ? `The platform did not say which id it gave "${s.name}"${s.note ? ` (${s.note})` : ''}, so it cannot be classified from here; classify it on the platform.`
          : `"${s.name}" is not on the platform yet (${s.state}): upload it first, then classify it.`;
        throw new ClassifyError('InvalidArguments', why, { reason: 'not-uploaded', platformMessage: null } satisfies ClassifyErrorDetails);
      }
      let target: ManagementTarget;
      try {
        target = opts.target ?? (await this.#d.management());
      } catch (err) {
        if (!(err instanceof CoreError)) throw err;
        throw new ClassifyError(err.code, err.message, { reason: err.code === 'Unauthorized' ? 'unauthorized' : 'no-project', platformMessage: null } satisfies ClassifyErrorDetails);
      }
      t = this.target(r, target.projectId);
      ctx = { name: s.name, platformSampleId: s.platformSampleId, projectId: target.projectId, impulseId: t.impulseId };
      const jobKey = JSON.stringify([target.managementUrl, target.projectId, s.platformSampleId, t.impulseId, t.variant]);
      const started = Date.now();
      const fc = ctx;
      // The declared flow: classify/v2 answers the classifications, or a job it started; wait for
      // that job (its status), then ask once more. Never a second request while its job runs.
      let jobId = this.#jobs.get(jobKey) ?? null;
      let resumed = jobId !== null;
      for (;;) {
        if (jobId === null) {
          attempt++;
          say({ state: 'classifying', retryInMs: null, message: `Asking the platform to classify "${s.name}"…`, digest: null, error: null });
          const answer = await classifyOnPlatform(target, fc, t.variant, controller.signal, this.#d.requestTimeoutMs);
          if (answer.kind === 'classified') {
            const c = readClassification(answer.answer, {
              sampleId: id, platformSampleId: s.platformSampleId, impulseId: t.impulseId, variant: t.variant, classifiedAt: this.#now(),
              expected: s.label, localLengthMs: s.lengthMs,
            });
            // Deleted here while the platform worked: store.get says so (NotFound), nothing is kept.
            this.#d.store.get(id);
            this.kept.keep(c);
            this.#d.announce?.([id]);
            const digest = digestOf(c);
            say({ state: 'done', retryInMs: null, message: digest.text, digest, error: null });
            return c;
          }
          jobId = answer.jobId;
          this.#jobs.set(jobKey, jobId);
        }
        const job = jobId;
        const outcome = await this.#waitForJob(target, fc, job, { started, resumed, signal: controller.signal }, (wait) => say({
          state: 'waiting', retryInMs: wait, digest: null, error: null,
          message: `Waiting for the platform's classification job ${job} for "${s.name}"; looking at it again in ${Math.ceil(wait / 1000)} s.`,
        }));
        this.#jobs.delete(jobKey);
        if (outcome === 'failed') throw classifyError('job-failed', fc, `job ${job} finished unsuccessfully`);
        // Finished (or, for one remembered from an earlier try, unknown to the platform now): ask again.
        jobId = null;
        resumed = false;
      }
    } catch (err) {
      const cancelled = controller.signal.aborted;
      const e = cancelled && !(err instanceof CoreError && err.code === 'Cancelled')
        ? classifyError('cancelled', ctx ?? { name: s.name, platformSampleId: s.platformSampleId ?? 0, projectId: 0, impulseId: t.impulseId })
        : err;
      const wire = toWireError(e);
      say({ state: wire.code === 'Cancelled' ? 'cancelled' : 'failed', retryInMs: null, message: wire.message, digest: null, error: wire });
      throw e;
    } finally {
      this.#running.delete(id);
    }
  }

  /**
   * Waits for a classification job: its status asked after 1, 2, 4… s (the backoff), at once for
   * one remembered from an earlier try. 'gone' when a remembered job is not known to the platform.
   */
  async #waitForJob(
    target: ManagementTarget, ctx: FailureContext, jobId: number,
    o: { started: number; resumed: boolean; signal: AbortSignal }, waiting: (waitMs: number) => void,
  ): Promise<'finished' | 'failed' | 'gone'> {
    for (let wait = o.resumed ? 0 : this.#backoff.baseMs; ; wait = Math.max(this.#backoff.baseMs, Math.min(wait * 2, this.#backoff.maxMs))) {
      if (Date.now() - o.started + wait > this.#backoff.giveUpMs) throw classifyError('job-running', ctx);
      waiting(wait);
      await sleep(wait, o.signal);
      if (o.signal.aborted) throw classifyError('cancelled', ctx);
      let st;
      try {
        st = await jobStatus(target, ctx, jobId, o.signal, this.#d.requestTimeoutMs);
      } catch (err) {
        const d = err instanceof ClassifyError ? err.details : null;
        if (o.resumed && d?.reason === 'platform' && d.platformMessage !== null) return 'gone';
        throw err;
      }
      if (st.finished) return st.successful === false ? 'failed' : 'finished';
    }
  }

  // ---------- takes and "classify each take after upload" ----------

  /** Captures just saved (recordings, AT board takes): noted, and looked at again once their upload ends. */
  noteTakes(ids: string[]): void {
    this.kept.noteTakes(ids, this.#now(), true);
  }

  /**
   * Called when samples changed (the upload queue's announcements): takes whose upload the
   * platform confirmed are classified when the capture option says so, one at a time.
   */
  uploadsChanged(): void {
    if (this.#closed || !this.kept.hasAwaiting()) return;
    const rule = this.#d.settings.get().classifyAfterUpload;
    for (const t of this.kept.awaitingSettled()) {
      this.kept.settle(t.id);
      if (t.state !== 'uploaded' || rule === 'off' || (rule === 'testing' && t.category !== 'testing')) continue;
      this.#autoChain = this.#autoChain.then(() => this.#autoClassify(t.id));
    }
  }

  async #autoClassify(id: string): Promise<void> {
    if (this.#closed) return;
    try {
      await this.classify(id, {}, { auto: true });
    } catch (err) {
      // Said in the samples.classifyState event; the take itself is fine.
      this.#d.log.warn('a take was not classified after its upload', { id, error: (err as Error).message });
    }
  }

  // ---------- views ----------

  modelSays(ids: string[]): ClassificationDigest[] {
    const latest = this.kept.latest(ids);
    return ids.flatMap((id) => {
      const c = latest.get(id);
      return c ? [digestOf(c)] : [];
    });
  }

  collectSummary(o: { since?: string | null | undefined; sessionId?: string | undefined }): CollectSummary {
    const since = o.since === undefined ? (o.sessionId ? null : this.#startedAt) : o.since;
    const sessionId = o.sessionId ?? null;
    const takes = this.kept.takes(since === null ? null : new Date(since).toISOString(), sessionId);
    return collectSummary(takes, this.kept.latest(takes.map((t) => t.id)), { since, sessionId });
  }

  /** Stops asking: running classifications end as cancelled, queued takes are left for the next start. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const c of this.#running.values()) c.abort();
    await this.#autoChain.catch(() => {});
  }
}
