import type { QueueStatus } from '../contract.js';
import { CoreError } from '../errors.js';
import type { Logger } from '../log.js';
import type { SampleStore } from '../samples/sample-store.js';
import { contentTypeFor } from '../samples/formats/label-from-filename.js';
import { MAX_FILE_BYTES, MAX_FILES_PER_REQUEST, sendFiles, type IngestionTarget } from './ingestion-client.js';
import { IngestionError } from './ingestion-errors.js';
import { QueueStore, type QueuedSample } from './queue-store.js';
import type { Part } from './multipart.js';
import { buildInfoLabels } from '../samples/formats/info-labels.js';

export interface UploadQueueOptions {
  store: SampleStore;
  log: Logger;
  /** Where to and with which key; asked per batch so a new key or URL applies at once. */
  target(): Promise<IngestionTarget>;
  concurrency?: number;
  /** Attempts before a sample is marked failed; the app retries for ever (offline laptops), the CLI gives up. */
  maxAttempts?: number;
  backoff?: { baseMs: number; maxMs: number };
  maxFilesPerRequest?: number;
  maxBytesPerRequest?: number;
  now?: () => number;
  random?: () => number;
  onChange?: (status: QueueStatus, changedIds: string[]) => void;
}

/**
 * The durable upload queue. State lives in SQLite (QueueStore), so this object can die at any
 * moment: a new one resumes from what was committed. Samples that share headers travel together,
 * up to the spec's 1000 files per request.
 */
export class UploadQueue {
  readonly #o: Required<Omit<UploadQueueOptions, 'onChange'>> & Pick<UploadQueueOptions, 'onChange'>;
  readonly #qs: QueueStore;
  #inFlight = 0;
  #running = false;
  #paused: string | null = null;
  #online = true;
  #timer: NodeJS.Timeout | null = null;
  #idleWaiters: Array<() => void> = [];
  #settled = new Set<Promise<void>>();

  constructor(opts: UploadQueueOptions) {
    this.#o = {
      concurrency: 4,
      maxAttempts: Infinity,
      backoff: { baseMs: 1000, maxMs: 5 * 60_000 },
      maxFilesPerRequest: 250,
      maxBytesPerRequest: 32 * 1024 * 1024,
      now: Date.now,
      random: Math.random,
      ...opts,
    };
    if (this.#o.maxFilesPerRequest > MAX_FILES_PER_REQUEST) throw new Error('maxFilesPerRequest exceeds the platform limit');
    this.#qs = new QueueStore(opts.store);
    const resumed = this.#qs.requeueInterrupted();
    if (resumed > 0) this.#o.log.info('resuming uploads interrupted by a restart', { samples: resumed });
  }

  /** Takes effect at once: more requests start now, or fewer start until the excess has settled. */
  setConcurrency(n: number): void {
    if (!Number.isInteger(n) || n < 1) throw new Error(`concurrency must be a whole number ≥ 1, got ${n}`);
    this.#o.concurrency = n;
    this.#pump();
  }

  get queueStore(): QueueStore {
    return this.#qs;
  }

  start(): void {
    this.#running = true;
    this.#pump();
  }

  /** Stops taking new work and waits for requests in flight to settle. */
  async stop(): Promise<void> {
    this.#running = false;
    if (this.#timer) clearTimeout(this.#timer);
    await Promise.all([...this.#settled]);
  }

  enqueue(ids: string[]): number {
    return this.enqueueChecked(ids).queued;
  }

  /**
   * Samples the store's quality setting holds back stay local (counted in `held`) unless forced
   * ("Upload anyway"). A store without a quality gate (the CLI's) holds nothing.
   */
  enqueueChecked(ids: string[], force = false): { queued: number; held: number } {
    const held = new Set(this.#o.store.holdBack(ids, force));
    const n = this.#qs.enqueue(held.size ? ids.filter((id) => !held.has(id)) : ids);
    this.#changed(ids);
    this.#pump();
    return { queued: n, held: held.size };
  }

  /** New queued samples were added outside enqueue (bulk import): look for work now. */
  wake(): void {
    this.#pump();
  }

  pause(reason: string): void {
    this.#paused = reason;
    this.#changed([]);
  }

  resume(): void {
    this.#paused = null;
    this.#changed([]);
    this.#pump();
  }

  status(): QueueStatus {
    return { paused: this.#paused !== null, pausedReason: this.#paused, online: this.#online, inFlight: this.#inFlight, counts: this.#o.store.counts() };
  }

  /** Resolves when nothing is queued or in flight, or the queue is paused. */
  whenIdle(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    return new Promise((r) => this.#idleWaiters.push(r));
  }

  #isIdle(): boolean {
    if (this.#inFlight > 0) return false;
    if (this.#paused) return true;
    const c = this.#o.store.counts();
    return c.queued === 0 && c.uploading === 0;
  }

  #pump(): void {
    if (!this.#running || this.#paused) return this.#checkIdle();
    while (this.#inFlight < this.#o.concurrency) {
      const batch = this.#qs.takeBatch(this.#o.now(), this.#o.maxFilesPerRequest, this.#o.maxBytesPerRequest);
      if (batch.length === 0) break;
      this.#inFlight++;
      const p = this.#send(batch)
        .catch((err: unknown) => this.#o.log.error('upload batch crashed', { error: String(err) }))
        .finally(() => {
          this.#inFlight--;
          this.#settled.delete(p);
          this.#pump();
        });
      this.#settled.add(p);
    }
    this.#scheduleNext();
    this.#checkIdle();
  }

  #scheduleNext(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const next = this.#qs.nextDueAt();
    if (next === null || this.#inFlight >= this.#o.concurrency) return;
    // Always arm the timer: the due check and this computation read the clock at different
    // moments, and a sample that fell between them must not wait for an event that never comes.
    const wait = Math.max(1, Math.ceil(next - this.#o.now()));
    this.#timer = setTimeout(() => this.#pump(), Math.min(wait, 2 ** 31 - 1));
  }

  #checkIdle(): void {
    if (this.#idleWaiters.length && this.#isIdle()) for (const w of this.#idleWaiters.splice(0)) w();
  }

  async #send(batch: QueuedSample[]): Promise<void> {
    const ids = batch.map((b) => b.sample.id);
    this.#changed(ids);
    const parts: Part[] = [];
    const ready: QueuedSample[] = [];
    const read = await Promise.all(
      batch.map(async (item) => {
        const s = item.sample;
        if (s.bytes > MAX_FILE_BYTES) return { item, error: `"${s.name}" is larger than the platform's 100 MB per file; split or crop it.`, reject: true };
        try {
          return { item, bytes: await this.#o.store.readBytes(s) };
        } catch (err) {
          return { item, error: (err as Error).message, reject: false };
        }
      }),
    );
    for (const r of read) {
      if ('bytes' in r && r.bytes) {
        parts.push({ name: r.item.sample.name, bytes: r.bytes, contentType: contentTypeFor(r.item.sample.name) });
        ready.push(r.item);
      } else if ('error' in r) {
        if (r.reject) this.#qs.markRejected(r.item.sample.id, r.error!);
        else this.#qs.markFailed(r.item.sample.id, r.error!);
      }
    }
    if (ready.length === 0) return this.#changed(ids);
    const first = ready[0]!;
    const headers = {
      category: first.sample.category,
      label: first.sample.label,
      metadata: first.sample.metadata,
      boundingBoxes: first.sample.boundingBoxes,
      disallowDuplicates: !first.options.allowDuplicates,
      addDateId: first.options.addDateId,
    };
    try {
      const target = await this.#o.target();
      const outcomes = await sendFiles(target, headers, parts, { sidecars: labelsSidecar(ready) });
      this.#online = true;
      // One commit for the whole answer: a thousand files must not cost a thousand fsyncs.
      this.#o.store.db.transaction(() =>
        outcomes.forEach((o, i) => {
          const s = ready[i]!.sample;
          if (o.ok) this.#qs.markUploaded(s.id, o.sampleId, null);
          else if (o.duplicate) this.#qs.markUploaded(s.id, null, `Already on the platform (${o.error}).`);
          else if (o.error.startsWith('The platform did not report')) this.#retry(s.id, s.attempts, o.error);
          else this.#qs.markRejected(s.id, o.error);
        }),
      )();
    } catch (err) {
      this.#handleRequestFailure(ready, err);
    }
    this.#changed(ids);
  }

  #handleRequestFailure(batch: QueuedSample[], err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof IngestionError && err.kind === 'unauthorized') {
      for (const b of batch) this.#qs.putBack(b.sample.id, message);
      this.#paused = `${message} Uploads are paused until you set a valid key and resume.`;
      this.#o.log.warn('uploads paused: API key refused');
      return;
    }
    if (err instanceof CoreError && err.code === 'Unauthorized') {
      // No key at all: same treatment, nothing was sent.
      for (const b of batch) this.#qs.putBack(b.sample.id, message);
      this.#paused = message;
      return;
    }
    if (err instanceof IngestionError && err.retryable) {
      if (err.kind === 'network' || err.kind === 'timeout') this.#online = false;
      this.#o.store.db.transaction(() => batch.forEach((b) => this.#retry(b.sample.id, b.sample.attempts, message)))();
      return;
    }
    if (err instanceof IngestionError && err.kind === 'bad-request') {
      for (const b of batch) this.#qs.markRejected(b.sample.id, message);
      return;
    }
    // 421 and anything unexpected: sending the same again would fail the same way.
    for (const b of batch) this.#qs.markFailed(b.sample.id, message);
    this.#o.log.error('upload failed', { error: message });
  }

  #retry(id: string, attemptsSoFar: number, error: string): void {
    const attempt = attemptsSoFar + 1;
    if (attempt >= this.#o.maxAttempts) {
      this.#qs.markFailed(id, `${error} (gave up after ${attempt} attempts)`);
      return;
    }
    // Exponential backoff with jitter, so a fleet of lab laptops does not retry in lockstep.
    const { baseMs, maxMs } = this.#o.backoff;
    const delay = Math.min(maxMs, baseMs * 2 ** (attempt - 1)) * (0.5 + this.#o.random() / 2);
    this.#qs.markRetry(id, error, Math.ceil(this.#o.now() + delay));
  }

  #changed(ids: string[]): void {
    this.#o.onChange?.(this.status(), ids);
  }
}

/**
 * Structured labels (event marks) cannot travel in a header: the platform reads them from an
 * info.labels file sent in the same request, which names each file it describes.
 */
function labelsSidecar(batch: QueuedSample[]): Part[] {
  const marked = batch.filter((b) => b.sample.structuredLabels && b.sample.structuredLabels.length > 0);
  if (marked.length === 0) return [];
  const text = buildInfoLabels(
    marked.map(({ sample: s }) => ({
      path: s.name,
      name: s.name.replace(/\.[^.]+$/, ''),
      category: s.category,
      label: { type: 'multi-label' as const, labels: s.structuredLabels! },
      metadata: s.metadata,
    })),
  );
  return [{ name: 'info.labels', bytes: Buffer.from(text), contentType: 'application/json' }];
}
