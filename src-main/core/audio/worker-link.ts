import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CoreError } from '../errors.js';
import type { Logger } from '../log.js';
import { runFolder, RUN_DIR_ENV, WORKER_MARKER } from './leftovers.js';
import { PARENT_PID_ENV } from './parent-watch.js';
import type { FromWorker, ToWorker, WireFault } from './worker-protocol.js';

/**
 * Where the capture program is at run time. esbuild bundles it to dist/audio/capture-worker.js;
 * the CLI (dist/cli/) and the Electron main process (dist/electron/) are one level below dist,
 * so the same relative URL finds it from either bundle. Tests running the TypeScript sources
 * pass their own path (see test/support/audio/build-worker.mjs).
 */
export function defaultWorkerPath(): string {
  // The bundle runs from dist/cli, dist/electron or a chunk folder below them.
  const candidates = ['../audio/capture-worker.js', '../../audio/capture-worker.js'].map((rel) => fileURLToPath(new URL(rel, import.meta.url)));
  return candidates.find((p) => existsSync(p)) ?? candidates[0]!;
}

/** How the core starts a capture process (with this environment, when given); tests inject scripted workers here. */
export type SpawnWorker = (env?: NodeJS.ProcessEnv) => ChildProcess;

export function forkWorker(path: string, env: NodeJS.ProcessEnv = process.env): SpawnWorker {
  return (chosen) => {
    if (!existsSync(path)) {
      throw new CoreError('Internal', `The audio capture program is missing (${path}). Reinstall the app, or run "npm run build" in a source checkout.`);
    }
    let runDir: string | undefined;
    try {
      runDir = runFolder(env);
    } catch {
      // no pid file: the start-up sweep cannot find this one later, nothing else changes
    }
    // WORKER_MARKER tells our capture processes from any other (see leftovers.ts).
    return fork(path, [WORKER_MARKER], {
      serialization: 'advanced', // PCM as Int16Array, not JSON
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      // Under Electron, process.execPath is the app: this makes it behave as plain Node.
      env: { ...(chosen ?? env), ELECTRON_RUN_AS_NODE: '1', [PARENT_PID_ENV]: String(process.pid), ...(runDir ? { [RUN_DIR_ENV]: runDir } : {}) },
      execArgv: [],
    });
  };
}

export interface WorkerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** It said it was done (after a stop or a fault) before leaving. */
  expected: boolean;
  /** Last lines it wrote to stderr (ALSA chatter removed), for the log. */
  stderrTail: string[];
}

/** A request without its id (the link numbers them). */
type Outgoing = ToWorker extends infer M ? (M extends ToWorker ? Omit<M, 'id'> : never) : never;

interface Pending {
  resolve(v: unknown): void;
  reject(e: unknown): void;
  kind: ToWorker['t'];
}

/** ALSA prints these while probing devices that do not exist; they are not news. */
const NOISE = /^ALSA lib |^\s*$/;

/**
 * One capture process: request/response over IPC, events for everything else, and a typed
 * error for every request still open when the process dies (a native abort included).
 */
export class WorkerLink {
  readonly child: ChildProcess;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #exited: WorkerExit | null = null;
  #expectExit = false;
  #ending = false;
  #stderr: string[] = [];
  readonly exited: Promise<WorkerExit>;

  constructor(spawn: SpawnWorker, private readonly log: Logger, onMessage: (m: FromWorker) => void, env?: NodeJS.ProcessEnv) {
    this.child = spawn(env);
    this.child.stderr?.setEncoding('utf8');
    let partial = '';
    this.child.stderr?.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (NOISE.test(line)) continue;
        this.#stderr.push(line);
        if (this.#stderr.length > 20) this.#stderr.shift();
      }
    });
    this.child.on('message', (raw) => {
      const m = raw as FromWorker;
      if (m.t === 'result') {
        const p = this.#pending.get(m.id);
        if (!p) return;
        this.#pending.delete(m.id);
        if (p.kind === 'stop') this.#expectExit = true;
        if (m.ok) p.resolve(m.value);
        else p.reject(faultToError(m.error));
        return;
      }
      if (m.t === 'fault') this.#expectExit = true;
      onMessage(m);
    });
    this.exited = new Promise((resolve) => {
      const done = (code: number | null, signal: NodeJS.Signals | null) => {
        if (this.#exited) return;
        this.#exited = { code, signal, expected: this.#expectExit || (code === 0 && signal === null && this.#pending.size === 0), stderrTail: [...this.#stderr] };
        const err = deathError(this.#exited);
        for (const p of this.#pending.values()) p.reject(err);
        this.#pending.clear();
        resolve(this.#exited);
      };
      this.child.on('exit', done);
      // A spawn failure (e.g. no such file) ends up here without an exit event; so does a message
      // sent on a channel that just closed, which is no reason to think the process has gone.
      this.child.on('error', (e) => {
        if (this.child.pid !== undefined && this.child.exitCode === null && this.child.signalCode === null) {
          this.log.warn('audio capture process: message not delivered', { error: e.message });
          return;
        }
        this.log.error('audio capture process failed to run', { error: e.message });
        done(null, null);
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Running and not being ended: the only state in which it takes requests. */
  get alive(): boolean {
    return this.#exited === null && !this.#ending;
  }

  /**
   * One request. With no answer within `timeoutMs` it rejects with a CoreError whose details say
   * `reason: 'no-answer'` and the process is ended (asked first, see end()); the caller can still
   * look at it (/proc) during the grace period to say what it was stuck on.
   */
  request<T>(msg: Outgoing, timeoutMs: number): Promise<T> {
    if (this.#exited) return Promise.reject(deathError(this.#exited));
    if (this.#ending) return Promise.reject(new CoreError('Unavailable', 'The audio capture process is being ended; try again.', { reason: 'ending' }));
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new CoreError('Unavailable', `The audio capture process did not answer within ${Math.round(timeoutMs / 1000)} s; it was restarted. Try again.`, { reason: 'no-answer', request: msg.t, timeoutMs }));
        void this.end();
      }, timeoutMs);
      this.#pending.set(id, {
        kind: msg.t,
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v as T);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.child.send({ ...msg, id } as ToWorker);
    });
  }

  /**
   * Ends the process without leaving what it holds half-held: asks first (closes the IPC channel,
   * which the process answers by releasing its device and leaving), then SIGTERM after `graceMs`,
   * then SIGKILL after as long again. Resolves when it is gone.
   */
  end(graceMs = 1000): Promise<WorkerExit> {
    if (this.#exited) return this.exited;
    this.#expectExit = true;
    if (!this.#ending) {
      this.#ending = true;
      try {
        if (this.child.connected) this.child.disconnect();
      } catch {
        // already closed
      }
      const term = setTimeout(() => {
        this.child.kill('SIGTERM');
        const kill = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
        void this.exited.then(() => clearTimeout(kill));
      }, graceMs);
      void this.exited.then(() => clearTimeout(term));
    }
    return this.exited;
  }

  /** Immediately (tests, and a process already known to be dying). Prefer end(). */
  kill(): void {
    if (this.#exited) return;
    this.#expectExit = true;
    this.child.kill('SIGKILL');
  }
}

export function faultToError(f: WireFault): CoreError {
  return new CoreError(f.code, f.message, f.details);
}

/** What the user reads when the capture process died under us. */
export function deathError(e: WorkerExit): CoreError {
  const how = e.signal ? `signal ${e.signal}` : `exit code ${e.code ?? 'unknown'}`;
  return new CoreError(
    'Unavailable',
    `The audio capture process stopped (${how}) — the microphone may have been unplugged, be in use by another application, or not work with this computer's sound system. Check the connection and pick the device again; a recording in progress was kept as incomplete.`,
    { reason: 'worker-died', signal: e.signal, exitCode: e.code },
  );
}
