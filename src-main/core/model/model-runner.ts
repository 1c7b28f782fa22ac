import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Classification } from '../contract/contract.js';
import { ErrorCode } from '../contract/wire-schema.js';
import { CoreError } from '../errors.js';
import type { RawProperties } from './glue.js';
import type { FromModelWorker, SampleJob, ToModelWorker } from './worker-protocol.js';

/**
 * Where the worker is at run time. esbuild bundles it to dist/model/model-worker.js; the CLI
 * (dist/cli/, chunks below it) and the Electron main process (dist/electron/) find it by the same
 * relative URL. Tests running the TypeScript sources bundle it themselves (test/support/models).
 * In an installed app the bundle is inside app.asar, which worker threads of older Electron
 * versions could not read (electron#22446): electron-builder.yml unpacks dist/model/, and the
 * unpacked copy is preferred.
 */
export function defaultModelWorkerPath(from: string = import.meta.url): string {
  const candidates = ['../model/model-worker.js', '../../model/model-worker.js'].map((rel) => fileURLToPath(new URL(rel, from)));
  const unpacked = candidates.map(unpackedPath).filter((p): p is string => p !== null);
  return [...unpacked, ...candidates].find((p) => existsSync(p)) ?? candidates[0]!;
}

/** The app.asar.unpacked twin of a path inside app.asar, or null. */
export function unpackedPath(path: string): string | null {
  const m = /([\\/])app\.asar([\\/])/.exec(path);
  return m ? path.replace(m[0], `${m[1]}app.asar.unpacked${m[2]}`) : null;
}

/** How the core starts a model worker (the seam: tests pass a bundle of the sources). */
export type SpawnModelWorker = () => Worker;

export function modelWorkerSpawner(path: string = defaultModelWorkerPath()): SpawnModelWorker {
  return () => {
    if (!existsSync(path)) throw new CoreError('Internal', `The model worker is missing (${path}). Reinstall the app, or run "npm run build" in a source checkout.`);
    // The glue's stdout chatter (debug prints) must not reach a CLI's JSON output.
    return new Worker(path, { stdout: true, stderr: true, resourceLimits: { maxOldGenerationSizeMb: 256 } });
  };
}

/** The module died (an abort, an error thrown by its glue, the worker killed). */
export class ModelDiedError extends Error {
  override name = 'ModelDiedError';
}

export interface WindowResult {
  code: number;
  scores: Array<[string, number]>;
  anomaly: number | null;
  ms: number;
  refilling: boolean;
}

interface Pending {
  resolve(v: never): void;
  reject(e: unknown): void;
}

/** How long a stop may take before the worker is terminated (it is asked first: its buffers are freed). */
const STOP_GRACE_MS = 2000;

/**
 * One started model in one worker thread: request/response by id, and a typed error for every
 * request still open when the worker dies. It does not restart itself; ModelSession does.
 */
export class ModelRunner {
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #dead: Error | null = null;
  #stderr = '';
  readonly exited: Promise<void>;
  #onDeath: ((err: Error) => void) | null = null;

  private constructor(
    private readonly worker: Worker,
    readonly properties: RawProperties,
    readonly startMs: number,
    exited: Promise<void>,
  ) {
    this.exited = exited;
  }

  /** Starts the worker, loads the export and waits for its runtime (refused after `timeoutMs`). */
  static async start(jsPath: string, spawn: SpawnModelWorker, timeoutMs = 10_000, signal?: AbortSignal): Promise<ModelRunner> {
    if (signal?.aborted) throw stoppedStarting();
    const worker = spawn();
    let runner: ModelRunner | null = null;
    let stderr = '';
    worker.stderr?.setEncoding('utf8').on('data', (d: string) => {
      stderr = (stderr + d).slice(-4000);
      if (runner) runner.#stderr = stderr;
    });
    worker.stdout?.resume(); // drained, not shown: debug prints of the module
    let loadSettled = false;
    let stopStarting = (): void => undefined;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    const loaded = new Promise<{ properties: RawProperties; startMs: number }>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new CoreError('Unavailable', `The model's WebAssembly did not start within ${Math.round(timeoutMs / 1000)} s. The export may be damaged or made for a browser only: download it again from the platform's deployment page (WebAssembly, Node.js).`));
      }, timeoutMs);
      worker.on('message', (m: FromModelWorker) => {
        if (loadSettled) return runner ? runner.#message(m) : undefined;
        if (m.t === 'loaded') {
          loadSettled = true;
          clearTimeout(timer);
          resolve({ properties: m.properties, startMs: m.startMs });
        } else if (m.t === 'load-failed') {
          loadSettled = true;
          clearTimeout(timer);
          reject(new CoreError('InvalidArguments', `The model could not be started: ${m.message}.${damagedHint(m.message)}`, { detail: m.detail }));
        }
      });
      const died = (what: string) => {
        if (loadSettled) return;
        loadSettled = true;
        clearTimeout(timer);
        reject(new CoreError('InvalidArguments', `The model stopped while starting: ${what}${stderr ? ` (${lastLine(stderr)})` : ''}.`));
      };
      worker.once('error', (err) => died(err.message));
      worker.once('exit', (code) => died(`its worker ended with code ${code}`));
      // Not wanted any more (a pool closed while it warmed up): the start ends now, not when the module has loaded.
      stopStarting = () => {
        if (loadSettled) return;
        loadSettled = true;
        clearTimeout(timer);
        reject(stoppedStarting());
      };
      signal?.addEventListener('abort', stopStarting, { once: true });
    });
    worker.postMessage({ t: 'load', jsPath } satisfies ToModelWorker);
    try {
      const { properties, startMs } = await loaded;
      runner = new ModelRunner(worker, properties, startMs, exited);
      runner.#stderr = stderr;
      const r = runner;
      worker.on('error', (err) => r.#die(new ModelDiedError(err.message)));
      worker.on('exit', (code) => r.#die(new ModelDiedError(`its worker ended (code ${code})`)));
      return runner;
    } catch (err) {
      await worker.terminate();
      throw err;
    } finally {
      signal?.removeEventListener('abort', stopStarting); // started or not, the signal has no more say
    }
  }

  get dead(): Error | null {
    return this.#dead;
  }

  /** Called once when the worker dies without being stopped. */
  onDeath(cb: (err: Error) => void): void {
    this.#onDeath = cb;
  }

  /** `values` is transferred to the worker: the caller must not use it afterwards. */
  classify(values: Float32Array, o: { continuous?: boolean; seq?: number; count?: number } = {}): Promise<WindowResult> {
    const m = { continuous: o.continuous ?? false, seq: o.seq ?? 0, count: o.count ?? values.length };
    return this.#request<WindowResult>((id) => ({ t: 'classify', id, values, ...m }), [values.buffer as ArrayBuffer]);
  }

  /**
   * `count` whole windows end to end in `values`, classified in order: one message each way. The
   * windows are copied into memory shared with the worker, so nothing is transferred: a buffer
   * transferred a batch (and the external memory it moves between threads) cost as much as the
   * windows' own classification once hundreds of samples went through. A second batch sent before
   * the first came back gets a buffer of its own, transferred.
   */
  classifyBatch(values: Float32Array, windowFloats: number, count: number): Promise<WindowResult[]> {
    const n = windowFloats * count;
    if (this.#batchBusy) {
      const own = values.slice(0, n);
      return this.#request<WindowResult[]>((id) => ({ t: 'classify-batch', id, values: own, windowFloats, count }), [own.buffer as ArrayBuffer]);
    }
    if (!this.#shared || this.#shared.length < n) this.#shared = new Float32Array(new SharedArrayBuffer(n * 4));
    this.#shared.set(values.subarray(0, n));
    const shared = this.#shared;
    this.#batchBusy = true;
    return this.#request<WindowResult[]>((id) => ({ t: 'classify-batch', id, values: shared, windowFloats, count })).finally(() => {
      this.#batchBusy = false;
    });
  }

  /**
   * A whole sample read, decoded, windowed and classified in the worker (bulk work): resolves with
   * its result; a sample the worker refuses (too short, its file gone)
   * rejects with that CoreError and the module goes on; a dead module rejects with ModelDiedError.
   */
  classifySample(job: SampleJob): Promise<Classification> {
    return this.#request((id) => ({ t: 'classify-sample', id, ...job }));
  }

  /** The batch buffer shared with the worker (classifyBatch), grown when a batch needs more. */
  #shared: Float32Array | null = null;
  #batchBusy = false;

  memory(): Promise<{ heapBytes: number; rssBytes: number }> {
    return this.#request((id) => ({ t: 'memory', id }));
  }

  /** Asks the worker to free and leave; terminates it if it has not within the grace period. */
  async stop(): Promise<void> {
    if (this.#dead) return;
    this.#dead = new ModelDiedError('stopped');
    this.#onDeath = null;
    this.worker.postMessage({ t: 'stop' } satisfies ToModelWorker);
    const timer = setTimeout(() => void this.worker.terminate(), STOP_GRACE_MS);
    await this.exited;
    clearTimeout(timer);
    this.#rejectAll(new ModelDiedError('the model was stopped'));
  }

  #request<T>(make: (id: number) => ToModelWorker, transfer: ArrayBuffer[] = []): Promise<T> {
    if (this.#dead) return Promise.reject(this.#dead);
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: never) => void, reject });
      this.worker.postMessage(make(id), transfer);
    });
  }

  #message(m: FromModelWorker): void {
    if (m.t === 'result') {
      const p = this.#pending.get(m.id);
      this.#pending.delete(m.id);
      p?.resolve({ code: m.code, scores: m.scores, anomaly: m.anomaly, ms: m.ms, refilling: m.refilling } as never);
    } else if (m.t === 'batch-result') {
      const p = this.#pending.get(m.id);
      this.#pending.delete(m.id);
      p?.resolve(m.results.map((r) => ({ ...r, refilling: false })) as never);
    } else if (m.t === 'sample-result') {
      const p = this.#pending.get(m.id);
      this.#pending.delete(m.id);
      p?.resolve(m.classification as never);
    } else if (m.t === 'sample-refused') {
      const p = this.#pending.get(m.id);
      this.#pending.delete(m.id);
      const code = ErrorCode.safeParse(m.code);
      p?.reject(new CoreError(code.success ? code.data : 'Internal', m.message, m.details));
    } else if (m.t === 'memory') {
      const p = this.#pending.get(m.id);
      this.#pending.delete(m.id);
      p?.resolve({ heapBytes: m.heapBytes, rssBytes: m.rssBytes } as never);
    } else if (m.t === 'failed') {
      this.#die(new ModelDiedError(m.message));
    }
  }

  #die(err: Error): void {
    if (this.#dead) return;
    const reason = this.#stderr && !err.message.includes(lastLine(this.#stderr)) ? new ModelDiedError(`${err.message} (${lastLine(this.#stderr)})`) : err;
    this.#dead = reason;
    this.#rejectAll(reason);
    void this.worker.terminate();
    const cb = this.#onDeath;
    this.#onDeath = null;
    cb?.(reason);
  }

  #rejectAll(err: Error): void {
    for (const p of this.#pending.values()) p.reject(err);
    this.#pending.clear();
  }
}

/** A wasm the engine refuses to compile or link is a damaged file, not a bug to report. */
function damagedHint(message: string): string {
  return /^(CompileError|LinkError)\b/.test(message) ? ' Its .wasm file is damaged: download the export again from the platform\'s deployment page (WebAssembly) and add it again.' : '';
}

function lastLine(text: string): string {
  return text.trim().split('\n').pop()?.slice(0, 300) ?? '';
}

const stoppedStarting = (): CoreError => new CoreError('Cancelled', 'The model worker was stopped while starting: it was no longer needed.');
