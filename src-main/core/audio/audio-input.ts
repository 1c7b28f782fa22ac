import type { AudioSupervisor } from './audio-supervisor.js';

/**
 * What the app and recordings need of audio capture: the AudioSupervisor in the shells (injected
 * from the composition roots), a scripted stand-in in unit tests.
 */
export type AudioInput = Pick<
  AudioSupervisor,
  'status' | 'listDevices' | 'watchDevices' | 'start' | 'stop' | 'preRoll' | 'whenLive' | 'close' | 'pcm' | 'levels' | 'states' | 'errors'
> &
  /** Which sound system is used and what was found stuck (see audio-host.ts, stuck-audio.ts). */
  Partial<Pick<AudioSupervisor, 'host' | 'problem' | 'problems'>>;
