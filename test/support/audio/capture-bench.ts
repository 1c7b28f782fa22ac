import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { AudioSupervisor, type AudioSupervisorOptions } from '../../../src-main/core/audio/audio-supervisor.js';
import { silentLogger } from '../../../src-main/core/log.js';
import { SampleStore, type SampleStoreOptions } from '../../../src-main/core/samples/sample-store.js';

// For the tests that drive the microphone side below the core (AudioSupervisor, AudioRecording):
// a sample store in a new temporary folder for each test, and supervisors that are all closed after
// it, so no capture process outlives its test (it would hold the device, or write into a removed folder).

export interface CaptureBench {
  /** This test's data folder, and the store on it. */
  readonly dir: string;
  readonly store: SampleStore;
  /** A supervisor forking `workerPath` with this process's env plus `env`, never restarting by itself unless `o` says so. */
  supervisor(workerPath: string, env: Record<string, string | undefined>, o?: Partial<AudioSupervisorOptions>): AudioSupervisor;
}

export function useCaptureBench(prefix: string, storeOptions?: SampleStoreOptions): CaptureBench {
  let dir: string | undefined;
  let store: SampleStore | undefined;
  const sups: AudioSupervisor[] = [];
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
    store = await SampleStore.open(dir, silentLogger, storeOptions);
  });
  afterEach(async () => {
    await Promise.all(sups.splice(0).map((s) => s.close()));
    await store!.close();
    await rm(dir!, { recursive: true, force: true });
  });
  return {
    get dir() {
      return dir!;
    },
    get store() {
      return store!;
    },
    supervisor(workerPath, env, o = {}) {
      const sup = new AudioSupervisor({ log: silentLogger, workerPath, env: { ...process.env, ...env }, restartDelaysMs: false, ...o });
      sups.push(sup);
      return sup;
    },
  };
}
