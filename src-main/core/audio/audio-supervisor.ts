import { existsSync } from 'node:fs';
import { normalize, type CaptureOptions, type CaptureStatus, type PcmBatch } from './capture-options.js';
import { CoreError, toWireError } from '../errors.js';
import { LevelMonitor, type LevelReport } from './levels.js';
import { chooseAudioHost, envForHost, type HostChoice } from './audio-host.js';
import type { AudioSupervisorOptions } from './supervisor-options.js';
import { deathErrorFor, openFailedError } from './capture-failures.js';
import { endLeftovers } from './leftovers.js';
import { diagnoseStuck, stuckError } from './stuck-audio.js';
import { DeviceWatch, type DeviceChange } from './device-watch.js';
import { Listeners } from './listeners.js';
import { PreRollBuffer } from './pre-roll.js';
import { defaultWorkerPath, forkWorker, WorkerLink, type SpawnWorker } from './worker-link.js';
import { type AudioDevice, type FromWorker, type StartRequest, type StartResult, type StopResult } from './worker-protocol.js';

export type { DeviceChange, AudioSupervisorOptions };
// The capture's shapes live in capture-options.ts; importers of the supervisor keep finding them here.
export * from './capture-options.js';

interface Session {
  link: WorkerLink;
  opts: Required<CaptureOptions>;
  started: StartResult;
  frames: number;
  level: LevelMonitor;
  preRoll: PreRollBuffer;
}

/**
 * Owns audio capture for the core: the capture process (started on demand, restarted when it
 * dies), the device list and its changes, and the live capture — level reports for the UI, a
 * pre-roll ring, and every PCM batch for recorders.
 *
 * One capture at a time. Nothing from node-web-audio-api is loaded in this process.
 */
export class AudioSupervisor {
  readonly #o: AudioSupervisorOptions;
  readonly #spawn: SpawnWorker;
  #idle: WorkerLink | null = null; // a process for listing devices when nothing is captured
  #idleTimer: NodeJS.Timeout | null = null;
  #session: Session | null = null;
  #status: CaptureStatus = { state: 'idle', device: null, sampleRate: null, deviceRate: null, live: false, frames: 0, error: null, workerPid: null };
  #wanted: Required<CaptureOptions> | null = null; // what to restart after a failure
  #restartTimer: NodeJS.Timeout | null = null;
  #closed = false;
  #transition: Promise<unknown> = Promise.resolve();
  #host: HostChoice | null = null;
  /** JACK's metadata lock was found stuck: later processes keep libjack out whatever the choice. */
  #jackStuck = false;
  #problem: CoreError | null = null;
  #swept: Promise<unknown> | null = null;
  readonly #deviceWatch: DeviceWatch;

  readonly pcm = new Listeners<PcmBatch>();
  readonly levels = new Listeners<LevelReport>();
  readonly states = new Listeners<CaptureStatus>();
  /** The capture ended because of this (device gone, process died). Recordings end here. */
  readonly errors = new Listeners<CoreError>();
  readonly deviceChanges: Listeners<DeviceChange>;
  /** `problem` changed (stuck found, or answering again). */
  readonly problems = new Listeners<CoreError | null>();

  constructor(o: AudioSupervisorOptions) {
    this.#o = o;
    this.#spawn = o.spawn ?? forkWorker(o.workerPath ?? defaultWorkerPath(), o.env);
    this.#deviceWatch = new DeviceWatch(() => this.listDevices(), o.log, o.devicePollMs ?? 2000);
    this.deviceChanges = this.#deviceWatch.changes;
  }

  get status(): CaptureStatus {
    return { ...this.#status };
  }

  /** The sound system the last capture process was started for, and why (null before the first). */
  get host(): HostChoice | null {
    return this.#host;
  }

  /** What was found stuck the last time the sound system did not answer (null once it answers again). */
  get problem(): CoreError | null {
    return this.#problem;
  }

  /**
   * Input devices now; the first entry is "default" (the system default) when there is any input.
   * Time-boxed: a sound system that does not answer is named (see stuck-audio.ts), not waited on.
   */
  async listDevices(): Promise<AudioDevice[]> {
    const link = this.#session?.link.alive ? this.#session.link : await this.#idleLink();
    const ms = this.#o.listTimeoutMs ?? 8000;
    const devices = await link.request<AudioDevice[]>({ t: 'list' }, ms).catch((err: unknown) => this.#whenStuck(err, link, 'Listing microphones', ms));
    if (link === this.#idle) this.#scheduleIdleExit();
    this.#answered();
    this.#deviceWatch.note(devices);
    return devices;
  }

  /** Calls `cb` with the list now and whenever a device appears or disappears (see device-watch.ts). */
  watchDevices(cb: (change: DeviceChange) => void, signal?: AbortSignal): () => void {
    return this.#deviceWatch.watch(cb, signal);
  }

  /**
   * Starts capturing (the live view) or returns the running capture if it matches. Rejects with
   * a CoreError (no device, device missing, process died while opening it).
   */
  start(opts: CaptureOptions = {}): Promise<CaptureStatus> {
    let want: Required<CaptureOptions>;
    try {
      want = normalize(opts);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.#serial(async () => {
      const s = this.#session;
      if (s && s.link.alive && s.opts.deviceId === want.deviceId && s.opts.sampleRate === want.sampleRate && s.opts.deviceRate === want.deviceRate) return this.status;
      this.#cancelRestart();
      if (s) await this.#stopSession(s);
      this.#wanted = want;
      return this.#startSession(want);
    });
  }

  /**
   * Stops capturing. Resolves with the frames delivered and the engine padding removed on the
   * way (device-rate frames of made-up silence; see padding-filter.ts).
   */
  stop(): Promise<{ frames: number; paddingFrames: number }> {
    return this.#serial(async () => {
      this.#wanted = null;
      this.#cancelRestart();
      const s = this.#session;
      const r = s ? await this.#stopSession(s) : { frames: 0, paddingFrames: 0 };
      this.#setStatus({ state: 'idle', device: null, sampleRate: null, deviceRate: null, live: false, frames: 0, error: null, workerPid: null });
      return r;
    });
  }

  /** Resolves once real audio flows (or at once if it does); rejects if the capture fails first. */
  whenLive(timeoutMs = 10_000): Promise<void> {
    if (this.#status.live) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const offs: Array<() => void> = [];
      const done = (err?: unknown) => {
        clearTimeout(timer);
        for (const off of offs) off();
        if (err) reject(err);
        else resolve();
      };
      const timer = setTimeout(() => done(new CoreError('Unavailable', `No audio arrived from the microphone within ${Math.round(timeoutMs / 1000)} s. Check that it is not muted or in use, then try again.`)), timeoutMs);
      offs.push(this.states.on((st) => (st.live ? done() : st.state === 'idle' || st.state === 'failed' ? done(st.error ? new CoreError(st.error.code, st.error.message, st.error.details) : new CoreError('Unavailable', 'The capture stopped before audio arrived.')) : undefined)));
    });
  }

  /** The last `ms` of audio (pre-roll), at the capture's rate. */
  preRoll(ms: number): Int16Array {
    const s = this.#session;
    if (!s) return new Int16Array(0);
    return s.preRoll.last((ms * s.opts.sampleRate) / 1000);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#deviceWatch.close();
    await this.stop().catch(() => undefined);
    this.#dropIdle();
  }

  // ---- internals ----

  /** Start/stop never interleave (two windows pressing at once share the order they came in). */
  #serial<T>(op: () => Promise<T>): Promise<T> {
    const run = this.#transition.then(op, op);
    this.#transition = run.catch(() => undefined);
    return run;
  }

  async #idleLink(): Promise<WorkerLink> {
    if (this.#closed) throw new CoreError('Unavailable', 'Audio capture has been shut down.');
    if (this.#idle?.alive) return this.#idle;
    const link = await this.#newLink();
    if (this.#idle?.alive) {
      void link.end(); // another caller got there first
      return this.#idle;
    }
    this.#idle = link;
    return link;
  }

  /**
   * A request that got no answer: say what the process is stuck on (read from outside while it is
   * still there) and throw that instead. A stuck JACK metadata lock also keeps libjack out of every
   * later process, so the microphones stay usable through ALSA.
   */
  async #whenStuck(err: unknown, link: WorkerLink, what: string, ms: number): Promise<never> {
    if (!(err instanceof CoreError) || (err.details as { reason?: string } | undefined)?.reason !== 'no-answer') throw err;
    const report = await diagnoseStuck(link.pid, this.#host ?? { host: 'alsa', reason: '', jackServer: null }, this.#o.env ?? process.env);
    const stuck = stuckError(what, ms, report);
    if (report.on === 'jack-metadata-lock') this.#jackStuck = true;
    this.#setProblem(stuck);
    this.#o.log.error('audio capture process is stuck', { on: report.on, folder: report.folder, jackServer: report.jackServer, pid: link.pid });
    throw stuck;
  }

  /** An idle process is kept for the next question (device polling asks every few seconds), then let go. */
  #scheduleIdleExit(): void {
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    const keep = Math.max(10_000, 3 * (this.#o.devicePollMs ?? 2000));
    this.#idleTimer = setTimeout(() => this.#dropIdle(), keep);
    this.#idleTimer.unref();
  }

  #dropIdle(): void {
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = null;
    void this.#idle?.end();
    this.#idle = null;
  }

  async #newLink(): Promise<WorkerLink> {
    // Leftovers of earlier runs go first (once), then the sound system is chosen for this process.
    this.#swept ??= endLeftovers(this.#o.log).catch((err: unknown) => this.#o.log.warn('could not look for leftover capture processes', { error: String(err) }));
    await this.#swept;
    const env = this.#o.env ?? process.env;
    let host = await (this.#o.chooseHost ?? (() => chooseAudioHost(env)))();
    if (this.#jackStuck && host.host === 'jack') host = { host: 'alsa', reason: 'ALSA: JACK\'s metadata lock was found stuck, so libjack is kept out', jackServer: host.jackServer };
    if (host.host !== this.#host?.host) this.#o.log.info('audio capture uses ' + host.reason, { host: host.host });
    this.#host = host;
    const link: WorkerLink = new WorkerLink(this.#spawn, this.#o.log, (m) => this.#onMessage(link, m), envForHost(host, env));
    void link.exited.then((exit) => {
      if (!exit.expected) this.#o.log.warn('audio capture process died', { signal: exit.signal, code: exit.code, stderr: exit.stderrTail.slice(-5) });
      if (this.#idle === link) this.#idle = null;
      const s = this.#session;
      if (s && s.link === link && !exit.expected) this.#fail(s, deathErrorFor(exit, s.started.device));
    });
    return link;
  }

  async #startSession(want: Required<CaptureOptions>): Promise<CaptureStatus> {
    if (this.#closed) throw new CoreError('Unavailable', 'Audio capture has been shut down.');
    // Capture gets a process of its own, one it can lose (an idle one holding no device may remain for a while).
    const link = await this.#newLink();
    this.#setStatus({ state: 'starting', device: null, sampleRate: want.sampleRate, deviceRate: want.deviceRate, live: false, frames: 0, error: null, workerPid: link.pid ?? null });
    const req: StartRequest = {
      deviceId: want.deviceId,
      sampleRate: want.sampleRate,
      deviceRate: want.deviceRate,
      latencySeconds: this.#o.latencySeconds ?? 0.2,
      presencePollMs: this.#o.presencePollMs ?? 1000,
      stallMs: this.#o.stallMs ?? 1500,
    };
    let started: StartResult;
    try {
      const ms = this.#o.openTimeoutMs ?? this.#o.requestTimeoutMs ?? 15_000;
      started = await link.request<StartResult>({ t: 'start', req }, ms).catch((err: unknown) => this.#whenStuck(err, link, 'Opening the microphone', ms));
      this.#answered();
    } catch (err) {
      void link.end();
      const e = err instanceof CoreError && (err.details as { reason?: string } | undefined)?.reason === 'worker-died'
        ? openFailedError(err, want.deviceId)
        : err;
      this.#setStatus({ ...this.#status, state: 'failed', error: toWireError(e) });
      throw e;
    }
    const capacity = Math.ceil(((this.#o.maxPreRollMs ?? 10_000) * want.sampleRate) / 1000);
    this.#session = {
      link, opts: want, started, frames: 0,
      level: new LevelMonitor({ sampleRate: want.sampleRate, ...this.#o.level }),
      preRoll: new PreRollBuffer(capacity),
    };
    this.#o.log.info('audio capture started', { device: started.device.name, deviceRate: started.deviceRate, sampleRate: started.sampleRate, pid: link.pid });
    this.#setStatus({ state: 'capturing', device: started.device, sampleRate: want.sampleRate, deviceRate: started.deviceRate, live: false, frames: 0, error: null, workerPid: link.pid ?? null });
    return this.status;
  }

  async #stopSession(s: Session): Promise<{ frames: number; paddingFrames: number }> {
    // The session stays current until the answer: batches arriving before it still belong to it.
    let paddingFrames = 0;
    if (s.link.alive) {
      try {
        const r = await s.link.request<StopResult>({ t: 'stop' }, 5000);
        paddingFrames = r.paddingFrames;
        this.#o.log.info('audio capture stopped', { frames: r.frames, paddingFrames: r.paddingFrames });
      } catch (err) {
        this.#o.log.warn('audio capture did not stop cleanly', { error: String(err) });
        void s.link.end();
      } finally {
        this.#session = null;
      }
    }
    return { frames: s.frames, paddingFrames };
  }

  #onMessage(link: WorkerLink, m: FromWorker): void {
    const s = this.#session;
    switch (m.t) {
      case 'pcm': {
        if (!s || s.link !== link) return;
        const batch: PcmBatch = { pcm: m.pcm, firstFrame: s.frames, sampleRate: s.opts.sampleRate };
        s.frames += m.pcm.length;
        this.#status.frames = s.frames;
        s.preRoll.push(m.pcm);
        this.pcm.emit(batch);
        for (const r of s.level.push(m.pcm)) this.levels.emit(r);
        return;
      }
      case 'live':
        if (!s || s.link !== link) return;
        this.#o.log.info('audio is live', { warmupMs: m.warmupMs });
        this.#setStatus({ ...this.#status, live: true });
        return;
      case 'fault':
        if (s && s.link === link) this.#fail(s, new CoreError(m.error.code, m.error.message, m.error.details));
        return;
      case 'log':
        this.#o.log[m.level](m.msg, m.fields);
        return;
      case 'ready':
      case 'result':
        return;
    }
  }

  #fail(s: Session, err: CoreError): void {
    if (this.#session !== s) return;
    this.#session = null;
    void s.link.end(); // after a fault it is leaving by itself; a dead one is already gone
    this.#o.log.warn('audio capture failed', { code: err.code, error: err.message });
    this.errors.emit(err); // first: recordings end with the error itself, not a state change
    this.#setStatus({ ...this.#status, state: 'failed', live: false, error: toWireError(err), workerPid: null });
    this.#scheduleRestart(0);
  }

  #scheduleRestart(attempt: number): void {
    const delays = this.#o.restartDelaysMs ?? [1000, 2000, 5000, 10_000, 30_000];
    const want = this.#wanted;
    if (delays === false || !want || this.#closed || attempt >= delays.length) return;
    this.#setStatus({ ...this.#status, state: 'restarting' });
    this.#restartTimer = setTimeout(() => {
      this.#restartTimer = null;
      void this.#serial(async () => {
        if (this.#wanted !== want || this.#session) return;
        try {
          await this.#startSession(want);
          this.#o.log.info('audio capture restarted', { attempt: attempt + 1 });
        } catch (err) {
          this.#o.log.warn('audio capture restart failed', { attempt: attempt + 1, error: String(err) });
          this.#scheduleRestart(attempt + 1);
        }
      });
    }, delays[attempt]);
  }

  #cancelRestart(): void {
    if (this.#restartTimer) clearTimeout(this.#restartTimer);
    this.#restartTimer = null;
  }

  /**
   * The sound system answered. A stuck JACK lock stays named while its folder is there (ALSA works
   * around it, but the folder is still stale for every JACK program); once it was moved away, JACK
   * may be used again.
   */
  #answered(): void {
    const d = this.#problem?.details as { stuck?: string; folder?: string } | undefined;
    if (!this.#problem) return;
    if (d?.stuck === 'jack-metadata-lock' && d.folder && existsSync(d.folder)) return;
    this.#jackStuck = false;
    this.#setProblem(null);
  }

  #setProblem(p: CoreError | null): void {
    if (p === this.#problem) return;
    this.#problem = p;
    this.problems.emit(p);
  }

  #setStatus(st: CaptureStatus): void {
    this.#status = st;
    this.states.emit(this.status);
  }
}
