import type { QueueStatus } from '../contract/contract.js';
import { CoreError } from '../errors.js';
import { errorCode, storageProblem } from '../fs/storage-error.js';
import { contentTypeFor } from '../samples/formats/label-from-filename.js';
import { MAX_FILE_BYTES, MAX_FILES_PER_REQUEST, sendFiles } from './ingestion-client.js';
import { IngestionError } from './ingestion-errors.js';
import { boxesSidecar, labelsSidecar } from './batch-sidecars.js';
import { storagePauseMessage } from './storage-pause.js';
import { QueueStore, type QueuedBatch, type QueuedFile, type UploadedMark } from './queue-store.js';
import type { UploadQueueOptions } from './upload-queue-options.js';

export type { UploadQueueOptions } from './upload-queue-options.js';
import type { Part } from './multipart.js';

type Optional = 'onChange' | 'onStored' | 'keyRefusedHint' | 'othersInFlight';

/**
 * The durable upload queue. State lives in SQLite (QueueStore), so this object can die at any
 * moment: a new one resumes from what was committed. Samples that share headers travel together,
 * up to the spec's 1000 files per request.
 */
export class UploadQueue {
  readonly #o: Required<Omit<UploadQueueOptions, Optional>> & Pick<UploadQueueOptions, Optional>;
  readonly #qs: QueueStore;
  #inFlight = 0;
  #running = false;
  #paused: string | null = null;
  #online = true;
  #timer: NodeJS.Timeout | null = null;
  #idleWaiters: Array<() => void> = [];
  #settled = new Set<Promise<void>>();
  /**
   * State changes the index refused (disk full), in order. They are applied before any new work
   * once it takes writes again; until then their samples keep the 'uploading' mark, which a
   * restart turns back into 'queued' (see the class comment).
   */
  #owed: Array<() => void> = [];
  /** Why the index cannot be written, in words for the user; null while it can. */
  #storage: string | null = null;
  #storageTimer: NodeJS.Timeout | null = null;

  constructor(opts: UploadQueueOptions) {
    this.#o = {
      concurrency: 4,
      maxAttempts: Infinity,
      backoff: { baseMs: 1000, maxMs: 5 * 60_000 },
      maxFilesPerRequest: 250,
      maxBytesPerRequest: 32 * 1024 * 1024,
      now: Date.now,
      random: Math.random,
      storageRetryMs: 15_000,
      storageResumeHint: `uploads resume by themselves (checked every ${Math.round((opts.storageRetryMs ?? 15_000) / 1000)} s) or when you resume them.`,
      ...opts,
    };
    if (this.#o.maxFilesPerRequest > MAX_FILES_PER_REQUEST) throw new Error('maxFilesPerRequest exceeds the platform limit');
    this.#qs = new QueueStore(opts.store);
    // On a full disk the app still starts; the queue waits, paused, until this can be written.
    this.#record(() => this.#takeBackAbandoned(true));
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
    if (this.#storageTimer) clearTimeout(this.#storageTimer);
    this.#storageTimer = null;
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
    // A sample without its rate would reach the platform with a made-up time base: never, not even forced.
    try {
      return this.#enqueueChecked(ids, force);
    } catch (err) {
      if (!this.#stalled(err)) throw err;
      throw new CoreError('Unavailable', this.#storage!);
    }
  }

  #enqueueChecked(ids: string[], force: boolean): { queued: number; held: number } {
    const noRate = this.#qs.waitingForRate(ids);
    if (noRate.length > 0 && noRate.length === ids.length) {
      throw new CoreError('InvalidArguments', `${noRate.length === 1 ? `Sample "${noRate[0]!.name}" has` : `${noRate.length} samples have`} no sampling rate yet: give it first (sample view, or "capture-desk samples set-rate ID --frequency HZ"), then queue.`);
    }
    const held = new Set([...this.#o.store.holdBack(ids, force), ...noRate.map((s) => s.id)]);
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

  /** Why nothing is sent (the key was refused, the disk is full…), or null; status() without counting every sample. */
  pausedReason(): string | null {
    return this.#storage ?? this.#paused;
  }

  status(): QueueStatus {
    const pausedReason = this.pausedReason();
    return { paused: pausedReason !== null, pausedReason, online: this.#online, inFlight: this.#inFlight, counts: this.#o.store.counts() };
  }

  /** Resolves when nothing is queued or in flight (or only another process's samples nobody answers for), or the queue is paused. */
  whenIdle(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    // The timer armed here looks again for samples another process has in flight (#scheduleNext).
    return new Promise((r) => (this.#idleWaiters.push(r), this.#scheduleNext()));
  }

  #isIdle(): boolean {
    if (this.#inFlight > 0) return false;
    if (this.#paused || this.#storage) return true;
    if (!this.#qs.hasPending()) return true;
    // Only what another process has in flight is left: waited for while it can still be answered.
    const others = this.#o.othersInFlight;
    return others !== undefined && this.#qs.nextDueAt() === null && others.stuck(this.#qs.inFlightMark());
  }

  #pump(): void {
    if (!this.#running) return this.#checkIdle();
    if ((this.#storage !== null || this.#owed.length > 0) && !this.#settleOwed()) return this.#checkIdle();
    if (this.#paused) return this.#checkIdle();
    // Only another process's samples in flight: the moment it is gone (killed while sending), they are sent here.
    if (this.#inFlight === 0 && this.#qs.nextDueAt() === null && this.#qs.hasPending()) this.#record(() => this.#takeBackAbandoned());
    while (this.#inFlight < this.#o.concurrency) {
      let batch: QueuedBatch | null;
      try {
        batch = this.#qs.takeBatch(this.#o.now(), this.#o.maxFilesPerRequest, this.#o.maxBytesPerRequest);
      } catch (err) {
        // Claiming is one transaction: refused, it left every sample as it was.
        if (!this.#stalled(err)) throw err;
        return this.#checkIdle();
      }
      if (batch === null) break;
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
    if (next === null && this.#inFlight === 0 && this.#idleWaiters.length > 0 && this.#qs.hasPending()) {
      // In flight in another process (a second run on this data folder, the app): its answers settle them there, unseen here.
      this.#timer = setTimeout(() => this.#pump(), 500);
      return;
    }
    if (next === null || this.#inFlight >= this.#o.concurrency) return;
    // Always arm the timer: the due check and this computation read the clock at different
    // moments, and a sample that fell between them must not wait for an event that never comes.
    const wait = Math.max(1, Math.ceil(next - this.#o.now()));
    this.#timer = setTimeout(() => this.#pump(), Math.min(wait, 2 ** 31 - 1));
  }

  #checkIdle(): void {
    if (this.#idleWaiters.length && this.#isIdle()) for (const w of this.#idleWaiters.splice(0)) w();
  }

  async #send({ headers: h, files }: QueuedBatch): Promise<void> {
    const ids = files.map((f) => f.id);
    this.#changed(ids);
    const parts: Part[] = [];
    const ready: QueuedFile[] = [];
    const read = await Promise.all(
      files.map(async (f) => {
        if (f.bytes > MAX_FILE_BYTES) return { f, error: `"${f.name}" is larger than the platform's 100 MB per file; split or crop it.`, reject: true };
        try {
          return { f, bytes: await this.#o.store.readBytes(f) };
        } catch (err) {
          return { f, error: (err as Error).message, reject: false };
        }
      }),
    );
    for (const r of read) {
      if ('bytes' in r && r.bytes) {
        parts.push({ name: r.f.name, bytes: r.bytes, contentType: contentTypeFor(r.f.name) });
        ready.push(r.f);
      } else if ('error' in r) {
        const { f, error, reject } = r;
        this.#record(() => (reject ? this.#qs.markRejected(f.id, error!) : this.#qs.markFailed(f.id, error!)));
      }
    }
    if (ready.length === 0) return this.#changed(ids);
    const headers = {
      category: h.category, label: h.labelFromName ? undefined : h.label, metadata: h.metadata,
      // Never the x-bounding-boxes header: it would apply to every file of the request, and boxes
      // belong to images only. They travel per image in a bounding_boxes.labels part instead.
      boundingBoxes: [], disallowDuplicates: !h.allowDuplicates, addDateId: h.addDateId,
    };
    let outcomes: Awaited<ReturnType<typeof sendFiles>>;
    try {
      const target = await this.#o.target();
      outcomes = await sendFiles(target, headers, parts, { sidecars: [...(await labelsSidecar(h, ready)), ...boxesSidecar(ready)] });
    } catch (err) {
      this.#handleRequestFailure(ready, err);
      return this.#changed(ids);
    }
    this.#online = true;
    this.#o.onStored?.(ready.flatMap((f, i) => (outcomes[i]!.ok ? [f.id] : [])));
    // Kept apart from the request: the platform has answered, so a failure to record that answer
    // must never be taken for a failed upload. One commit for the whole answer: a thousand files
    // must not cost a thousand fsyncs.
    this.#record(() =>
      this.#o.store.db.transaction(() => {
        const uploaded: UploadedMark[] = [];
        outcomes.forEach((o, i) => {
          const f = ready[i]!;
          if (o.ok) uploaded.push({ id: f.id, platformSampleId: o.sampleId, note: null, owned: f.owned });
          else if (o.duplicate) uploaded.push({ id: f.id, platformSampleId: null, note: `Already on the platform (${o.error}).`, owned: f.owned });
          else if (o.error.startsWith('The platform did not report')) this.#retry(f.id, f.attempts, o.error);
          else this.#qs.markRejected(f.id, o.error);
        });
        this.#qs.markUploadedMany(uploaded);
      })(),
    );
    this.#changed(ids);
  }

  #handleRequestFailure(batch: QueuedFile[], err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    const tx = (fn: () => void) => this.#record(() => this.#o.store.db.transaction(fn)());
    if (err instanceof IngestionError && err.kind === 'unauthorized') {
      const hint = this.#o.keyRefusedHint;
      const said = hint === undefined ? message : `${err.what} ${hint}`;
      tx(() => batch.forEach((b) => this.#qs.putBack(b.id, said)));
      this.#paused = hint === undefined ? `${message} Uploads are paused until you set a valid key and resume.` : said;
      this.#o.log.warn('uploads paused: API key refused');
      return;
    }
    if (err instanceof CoreError && err.code === 'Unauthorized') {
      // No key at all: same treatment, nothing was sent.
      tx(() => batch.forEach((b) => this.#qs.putBack(b.id, message)));
      this.#paused = message;
      return;
    }
    if (err instanceof IngestionError && err.retryable) {
      if (err.kind === 'network' || err.kind === 'timeout') this.#online = false;
      tx(() => batch.forEach((b) => this.#retry(b.id, b.attempts, message)));
      return;
    }
    if (err instanceof IngestionError && err.kind === 'bad-request') {
      tx(() => batch.forEach((b) => this.#qs.markRejected(b.id, message)));
      return;
    }
    // 421 and anything unexpected: sending the same again would fail the same way.
    tx(() => batch.forEach((b) => this.#qs.markFailed(b.id, message)));
    this.#o.log.error('upload failed', { error: message });
  }

  /**
   * Commits a state change, or, when the index cannot take writes (disk full, read-only), keeps it
   * to apply once it can and pauses the queue. Anything else is a fault and propagates.
   */
  /** Samples a process that is gone left marked 'uploading' go back to the queue (QueueStore.requeueInterrupted). */
  #takeBackAbandoned(mine = false): void {
    const resumed = this.#qs.requeueInterrupted(mine);
    if (resumed > 0) this.#o.log.info('resuming uploads a stopped process left in flight', { samples: resumed });
  }

  #record(write: () => void): void {
    // Behind another refused write: wait in line, the order of changes to one sample matters.
    if (this.#owed.length > 0) {
      this.#owed.push(write);
      return;
    }
    try {
      write();
    } catch (err) {
      if (!this.#stalled(err)) throw err;
      this.#owed.push(write);
    }
  }

  /** Applies the writes owed, in order. True when none is left and the pause for storage is over. */
  #settleOwed(): boolean {
    while (this.#owed.length > 0) {
      try {
        this.#owed[0]!();
      } catch (err) {
        if (this.#stalled(err)) return false;
        // A fault, not the disk: retrying it would block the queue for ever.
        this.#o.log.error('an upload state change could not be recorded; its samples are sent again after a restart', { error: String(err) });
      }
      this.#owed.shift();
    }
    if (this.#storage !== null) {
      this.#storage = null;
      if (this.#storageTimer) clearTimeout(this.#storageTimer);
      this.#storageTimer = null;
      this.#o.log.info('the data folder takes writes again; uploads resume');
      this.#changed([]);
    }
    return true;
  }

  /** If `err` says the data folder refuses writes: pause with a message saying so, retry later, and return true. */
  #stalled(err: unknown): boolean {
    const problem = storageProblem(err);
    if (problem === null) return false;
    const dir = this.#o.store.dataDir;
    const code = errorCode(err);
    const message = storagePauseMessage(problem, dir, code, this.#o.storageResumeHint);
    if (this.#storage === null) this.#o.log.warn('uploads paused: the data folder refuses writes', { dataDir: dir, error: code });
    const changed = this.#storage !== message;
    this.#storage = message;
    if (this.#storageTimer === null && this.#running) {
      this.#storageTimer = setTimeout(() => {
        this.#storageTimer = null;
        this.#pump();
      }, this.#o.storageRetryMs);
      // A one-shot CLI run must be able to exit while this waits.
      this.#storageTimer.unref();
    }
    if (changed) this.#changed([]);
    return true;
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
    // Said here, where it is decided: the same failure after the last attempt is a give-up, not a retry.
    this.#qs.markRetry(id, `${error} Will retry.`, Math.ceil(this.#o.now() + delay));
  }

  #changed(ids: string[]): void {
    this.#o.onChange?.(() => this.status(), ids);
  }
}
