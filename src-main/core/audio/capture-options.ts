import type { WireError } from '../contract/contract.js';
import { CoreError } from '../errors.js';
import { DEFAULT_DEVICE_ID, type AudioDevice } from './worker-protocol.js';

/** What a capture is asked for and says about itself, with the limits a request is checked against. */
export const MIN_SAMPLE_RATE = 8000;
export const MAX_SAMPLE_RATE = 48_000;
export const DEFAULT_SAMPLE_RATE = 16_000;
/** Asked of the device; 48 kHz is what nearly every microphone and sound server offers. */
export const DEFAULT_DEVICE_RATE = 48_000;

export interface CaptureOptions {
  /** From listDevices(); default "default" (the system's default input). */
  deviceId?: string;
  /** Rate of the recorded audio, 8000…48000 Hz (default 16000). */
  sampleRate?: number;
  deviceRate?: number;
}

export type CaptureState = 'idle' | 'starting' | 'capturing' | 'restarting' | 'failed';

export interface CaptureStatus {
  state: CaptureState;
  device: AudioDevice | null;
  sampleRate: number | null;
  deviceRate: number | null;
  /** Real audio is flowing (the device finished warming up). */
  live: boolean;
  /** Frames delivered since this capture started. */
  frames: number;
  error: WireError | null;
  /** The capture process (for diagnostics and resource figures). */
  workerPid: number | null;
}

export interface PcmBatch {
  pcm: Int16Array;
  /** Index of the first frame since the capture started. */
  firstFrame: number;
  sampleRate: number;
}

/** A request with its defaults filled in, refused with the limits when a rate is out of range. */
export function normalize(o: CaptureOptions): Required<CaptureOptions> {
  const sampleRate = o.sampleRate ?? DEFAULT_SAMPLE_RATE;
  if (!Number.isInteger(sampleRate) || sampleRate < MIN_SAMPLE_RATE || sampleRate > MAX_SAMPLE_RATE) {
    throw new CoreError('InvalidArguments', `Sample rate must be a whole number of Hz from ${MIN_SAMPLE_RATE} to ${MAX_SAMPLE_RATE}; got ${sampleRate}.`);
  }
  const deviceRate = o.deviceRate ?? DEFAULT_DEVICE_RATE;
  if (!Number.isInteger(deviceRate) || deviceRate < 8000 || deviceRate > 192_000) {
    throw new CoreError('InvalidArguments', `Device rate must be a whole number of Hz from 8000 to 192000; got ${deviceRate}.`);
  }
  return { deviceId: o.deviceId ?? DEFAULT_DEVICE_ID, sampleRate, deviceRate };
}
