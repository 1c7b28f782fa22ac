/**
 * Messages between the core and the audio capture process (child_process IPC with
 * serialization: 'advanced', so PCM travels as Int16Array without copying through JSON).
 *
 * Why a process: node-web-audio-api aborts the whole process (SIGABRT, not an exception) when a
 * capture device cannot be opened. Capture therefore runs in a child the core can lose and
 * restart; only this file and plain data cross the boundary.
 */
import type { ErrorCode } from '../contract/contract.js';

export interface AudioDevice {
  /** Stable across runs while the device keeps its name and channel count ("default" = the system's). */
  id: string;
  name: string;
  /** The system default input (the entry with id "default"). */
  default: boolean;
}

export const DEFAULT_DEVICE_ID = 'default';
/** The system default input's entry, first in every list (and choosable when none is connected). */
export const DEFAULT_ENTRY: AudioDevice = { id: DEFAULT_DEVICE_ID, name: 'System default input', default: true };

export interface StartRequest {
  /** A device id from the list, or "default". */
  deviceId: string;
  /** Rate of the samples delivered to the core (8000…48000). */
  sampleRate: number;
  /** Rate asked of the device and used by the audio graph (no resampling inside the engine). */
  deviceRate: number;
  /** Device buffer the engine asks for, in seconds (bigger = fewer late buffers). */
  latencySeconds: number;
  /** How often to look for the device while capturing (unplug detection), ms. */
  presencePollMs: number;
  /** The device counts as gone once it delivered nothing for this long and left the device list. */
  stallMs: number;
}

export interface StartResult {
  device: AudioDevice;
  deviceRate: number;
  sampleRate: number;
}

export interface StopResult {
  /** Frames delivered at `sampleRate`. */
  frames: number;
  /** Frames of engine padding removed (see padding-filter.ts), at the device rate. */
  paddingFrames: number;
}

export interface WireFault {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

export type ToWorker =
  | { t: 'list'; id: number }
  | { t: 'start'; id: number; req: StartRequest }
  | { t: 'stop'; id: number };

export type FromWorker =
  | { t: 'ready'; pid: number }
  | { t: 'result'; id: number; ok: true; value: unknown }
  | { t: 'result'; id: number; ok: false; error: WireFault }
  /** The first real audio arrived (after the device's warm-up). */
  | { t: 'live'; warmupMs: number }
  /** One batch of mono PCM at the requested rate; `seq` counts batches from 0. */
  | { t: 'pcm'; seq: number; pcm: Int16Array; clipped: number }
  /** Capture ended on its own (device gone); the worker is still alive and idle. */
  | { t: 'fault'; error: WireFault }
  | { t: 'log'; level: 'info' | 'warn'; msg: string; fields?: Record<string, unknown> };
