import type { Logger } from '../log.js';
import type { LevelMonitorOptions } from './levels.js';
import type { HostChoice } from './audio-host.js';
import type { SpawnWorker } from './worker-link.js';

/** How the app and the CLI set up an AudioSupervisor (their choices differ: restarts, timeouts). */
export interface AudioSupervisorOptions {
  log: Logger;
  /** Default: dist/audio/capture-worker.js next to the running bundle (see worker-link.ts). */
  workerPath?: string;
  /** Environment of the capture process (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Replaces forking workerPath (tests). */
  spawn?: SpawnWorker;
  /**
   * After the capture process dies or the device drops out, try to start the same capture again
   * after these delays (the app); false = report and stay failed (the CLI).
   */
  restartDelaysMs?: number[] | false;
  /** Longest pre-roll a recording can ask for. */
  maxPreRollMs?: number;
  /** How often watchDevices() looks at the device list. */
  devicePollMs?: number;
  level?: Omit<LevelMonitorOptions, 'sampleRate'>;
  /** Engine settings passed to the worker (see worker-protocol.ts). */
  latencySeconds?: number;
  presencePollMs?: number;
  stallMs?: number;
  requestTimeoutMs?: number;
  /** Longest a device listing may take before the sound system counts as stuck (default 8 s). */
  listTimeoutMs?: number;
  /** Longest opening a device may take before the sound system counts as stuck (default 15 s). */
  openTimeoutMs?: number;
  /** Which sound system a new capture process uses (default: chooseAudioHost, see audio-host.ts). */
  chooseHost?: () => Promise<HostChoice>;
}
