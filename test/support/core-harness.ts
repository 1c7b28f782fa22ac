// The core as the integration tests drive it: createCore with the real parts a test asks for, its
// events collected, a `call` that unwraps CallResult, and everything it starts closed after the test.
//
//   const cleanups = useCleanups();                 // afterEach: runs them, last pushed first
//   const worker = useCaptureWorker();              // beforeAll: bundles the audio capture worker
//   const { call, events, saved, dataDir } = await startCore(cleanups, { audio: { workerPath: worker(), env: pulse.env } });
//
// What startCore starts, and what it pushes onto `cleanups`:
//   - a data folder: `dataDir` if given, else `<tmp>/cd-core-XXXXXX/data` (left in place afterwards,
//     as the tests always did: a failed test's folder can be looked at);
//   - an AudioSupervisor, when `audio` is given (the core closes it);
//   - the core: `close()` is pushed, and is safe to call earlier by hand (it closes once).
// Everything else a test starts (the ingestion emulator, boards on PTYs, tones, small disks) stays
// in the test, which pushes its own clean-up.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCore, type Core, type CoreOptions } from '../../src-main/core/app.js';
import { AudioSupervisor } from '../../src-main/core/audio/audio-supervisor.js';
import type { CallResult, EventName, RecordingStatus } from '../../src-main/core/contract/contract.js';
import { createLogger } from '../../src-main/core/log.js';
import type { SpawnModelWorker } from '../../src-main/core/model/model-runner.js';
import { memoryKeychain, type Keychain } from '../../src-main/core/secrets/keychain.js';
import type { PortLister } from '../../src-main/core/serial/port-lister.js';
import type { SerialOpener } from '../../src-main/core/serial/byte-link.js';
import { serialportOpener } from '../../src-main/core/serial/serialport-opener.js';
import { buildCaptureWorker } from './audio/build-worker.mjs';
import { useBeforeAll } from './before-all.js';
import type { Cleanups } from './cleanups.js';
import { fixedPorts } from './fake-hardware.js';

export { useCleanups, type Cleanups } from './cleanups.js';

/** core.dispatch unwrapped: the value, or a thrown Error carrying the wire error's `code` and `details`. */
export type Call = <T = unknown>(method: string, input?: unknown) => Promise<T>;

type MemoryKeychain = ReturnType<typeof memoryKeychain>;

export interface CoreHarnessOptions<K extends Keychain = MemoryKeychain> {
  /** The data folder (e.g. on a small disk, or reused for a restart); default: a new temporary one. */
  dataDir?: string;
  /** Default 'cli'. */
  shell?: CoreOptions['shell'];
  /** Default: a new memoryKeychain(); pass the same one to a restart to keep the keys. */
  keychain?: K;
  /** Default: no ports listed (fixedPorts([])); boards are added by path. */
  ports?: PortLister;
  /** Default: the real serialport opener (PTYs); null: a shell that cannot open serial ports. */
  serial?: SerialOpener | null;
  /** Microphones: a real AudioSupervisor forking `workerPath` with this process's env plus `env` (e.g. a PulseAudio server's). */
  audio?: { workerPath: string; env?: Record<string, string | undefined> };
  /** Start the upload queue (createCore's default: true). */
  uploads?: boolean;
  /** Starts model workers; vitest runs sources, so a test passes testModelSpawner() (test/support/models/worker.ts). */
  modelWorker?: SpawnModelWorker;
  /**
   * The platform to talk to, usually the ingestion emulator (an IngestionServer fits): one
   * settings.set with its URLs and `projectId` (default 1) plus `settings`.
   */
  emulator?: { url: string; managementUrl?: string; projectId?: number };
  /** Settings to set once started (with the emulator's, in the same settings.set). */
  settings?: Record<string, unknown>;
  /** Stored as the project's API key (keys.set) after the settings. */
  apiKey?: string;
}

export interface CoreHarness<K extends Keychain = MemoryKeychain> {
  core: Core;
  call: Call;
  /** Every event the core sent, in order. */
  events: Array<[EventName, unknown]>;
  /** Every line the core logged. */
  logLines: string[];
  dataDir: string;
  keychain: K;
  /** The session's final status (saved or failed) if it has ended. */
  finished(sessionId: string): RecordingStatus | undefined;
  /** Waits (up to `ms`, default 10 s) for the session to end, saved or failed; throws if it does not. */
  saved(sessionId: string, ms?: number): Promise<RecordingStatus>;
  /** Closes the core once (a later call, and the clean-up, do nothing). */
  close(): Promise<void>;
}

/** Bundles the audio capture worker once for the file (before its tests); returns its path. */
export function useCaptureWorker(): () => string {
  return useBeforeAll('the capture worker', buildCaptureWorker, { timeoutMs: 60_000 });
}

/** Starts the core as `options` say; see the top of this file for what it starts and cleans up. */
export async function startCore<K extends Keychain = MemoryKeychain>(cleanups: Cleanups, options: CoreHarnessOptions<K> = {}): Promise<CoreHarness<K>> {
  const dataDir = options.dataDir ?? join(await mkdtemp(join(tmpdir(), 'cd-core-')), 'data');
  const keychain = options.keychain ?? (memoryKeychain() as Keychain as K);
  const logLines: string[] = [];
  const log = createLogger((l) => logLines.push(l));
  const audio = options.audio
    ? new AudioSupervisor({ log, workerPath: options.audio.workerPath, env: { ...process.env, ...options.audio.env }, devicePollMs: 500 })
    : undefined;
  const serial = options.serial === undefined ? serialportOpener : options.serial;
  const core = await createCore({
    dataDir,
    shell: options.shell ?? 'cli',
    ...(options.uploads === undefined ? {} : { uploads: options.uploads }),
    hardware: { ports: options.ports ?? fixedPorts([]), keychain, ...(serial ? { serial } : {}), ...(audio ? { audio } : {}), ...(options.modelWorker ? { modelWorker: options.modelWorker } : {}) },
    log,
  });
  let closing: Promise<void> | undefined;
  const close = () => (closing ??= core.close());
  cleanups.push(close);

  const events: Array<[EventName, unknown]> = [];
  core.onEvent((n, p) => events.push([n, p]));
  const call: Call = async <T>(method: string, input: unknown = {}) => {
    const r: CallResult = await core.dispatch(method, input);
    if (!r.ok) throw Object.assign(new Error(r.error.message), { code: r.error.code, details: r.error.details });
    return r.value as T;
  };
  const finished = (sessionId: string) =>
    events.find(([n, p]) => n === 'record.state' && (p as RecordingStatus).sessionId === sessionId && ['saved', 'failed'].includes((p as RecordingStatus).state))?.[1] as
      | RecordingStatus
      | undefined;
  const saved = async (sessionId: string, ms = 10_000) => {
    const end = Date.now() + ms;
    for (;;) {
      const done = finished(sessionId);
      if (done) return done;
      if (Date.now() > end) throw new Error('recording did not finish');
      await new Promise((r) => setTimeout(r, 25));
    }
  };

  const { emulator } = options;
  if (emulator || options.settings) {
    const platform = emulator
      ? { ingestionUrl: emulator.url, ...(emulator.managementUrl ? { managementUrl: emulator.managementUrl } : {}), projectId: emulator.projectId ?? 1 }
      : {};
    await call('settings.set', { ...platform, ...options.settings });
  }
  if (options.apiKey !== undefined) await call('keys.set', { kind: 'api-key', key: options.apiKey });
  return { core, call, events, logLines, dataDir, keychain, finished, saved, close };
}
