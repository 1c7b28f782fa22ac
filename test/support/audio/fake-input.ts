import type { AudioInput } from '../../../src-main/core/audio/audio-input.js';
import type { CaptureOptions, CaptureStatus, DeviceChange, PcmBatch } from '../../../src-main/core/audio/audio-supervisor.js';
import type { LevelReport } from '../../../src-main/core/audio/levels.js';
import { Listeners } from '../../../src-main/core/audio/listeners.js';
import type { AudioDevice } from '../../../src-main/core/audio/worker-protocol.js';
import type { CoreError } from '../../../src-main/core/errors.js';

export const DEFAULT: AudioDevice = { id: 'default', name: 'System default input', default: true };
export const USB: AudioDevice = { id: '7781', name: 'USB Microphone', default: false };

/** A stand-in for the AudioSupervisor: the device list and capture are set by the test. */
export class FakeInput implements AudioInput {
  devices: AudioDevice[] = [DEFAULT, USB];
  starts: CaptureOptions[] = [];
  stops = 0;
  status: CaptureStatus = { state: 'idle', device: null, sampleRate: null, deviceRate: null, live: false, frames: 0, error: null, workerPid: null };
  readonly pcm = new Listeners<PcmBatch>();
  readonly levels = new Listeners<LevelReport>();
  readonly states = new Listeners<CaptureStatus>();
  readonly errors = new Listeners<CoreError>();
  readonly deviceChanges = new Listeners<DeviceChange>();
  async listDevices() {
    return this.devices;
  }
  watchDevices(cb: (c: DeviceChange) => void) {
    const off = this.deviceChanges.on(cb);
    cb({ devices: this.devices, added: [], removed: [] });
    return off;
  }
  async start(o: CaptureOptions = {}) {
    this.starts.push(o);
    this.status = { ...this.status, state: 'capturing', device: this.devices.find((d) => d.id === o.deviceId) ?? null, sampleRate: o.sampleRate ?? 16_000 };
    return this.status;
  }
  async stop() {
    this.stops++;
    this.status = { ...this.status, state: 'idle', sampleRate: null };
    return { frames: 0, paddingFrames: 0 };
  }
  /** What preRoll() hands out (the test sets it). */
  held = new Int16Array(0);
  preRoll(ms: number) {
    const frames = Math.round((ms * (this.status.sampleRate ?? 16_000)) / 1000);
    return this.held.slice(Math.max(0, this.held.length - frames));
  }
  /** Delivers a batch of PCM as the capture process would. */
  feed(pcm: Int16Array) {
    const firstFrame = this.status.frames;
    this.status = { ...this.status, frames: firstFrame + pcm.length };
    this.pcm.emit({ pcm, firstFrame, sampleRate: this.status.sampleRate ?? 16_000 });
  }
  /** whenLive() waits for this (the test sets it to hold a warming-up microphone back). */
  live: Promise<void> = Promise.resolve();
  async whenLive() {
    await this.live;
  }
  async close() {}
  plug(devices: AudioDevice[]) {
    this.devices = devices;
    this.deviceChanges.emit({ devices, added: [], removed: [] });
  }
}
