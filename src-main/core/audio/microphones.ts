import { AudioSettings, type AudioStatus, type Source, type StreamInfo } from '../contract/contract.js';
import { CoreError } from '../errors.js';
import type { EventBus } from '../event-bus.js';
import type { Logger } from '../log.js';
import type { RunningSource, SourceFactory } from '../stream/stream-hub.js';
import type { AudioInput } from './audio-input.js';
import { DEFAULT_SAMPLE_RATE } from './audio-supervisor.js';
import { loadAudioChoice, saveAudioChoice, type AudioChoice } from './device-choice.js';
import type { AudioDevice } from './worker-protocol.js';

export const AUDIO_PREFIX = 'audio:';
export const DEFAULT_PRE_ROLL_MS = 0;
/** How the hub describes a microphone stream: one axis of 16-bit PCM (rows never reach the UI). */
const AXES = [{ name: 'audio', units: 'PCM16' }];

export interface MicrophonesDeps {
  input: AudioInput;
  dataDir: string;
  bus: EventBus;
  log: Logger;
  /** Stops a stream of the hub (another microphone: there is one capture at a time). */
  stopSource: (sourceId: string) => Promise<unknown>;
  /** A recording is taking this source now: it must not be switched or restarted under it. */
  isRecording?: (sourceId: string) => boolean;
  /** The device list changed (plugged in or out): the app re-sends its sources. */
  onDevicesChanged: () => void;
  devicePollMs?: number;
}

interface Active {
  sourceId: string;
  sink: Parameters<SourceFactory>[2];
  offs: Array<() => void>;
}

/**
 * Microphones as sources of the app ("audio:<deviceId>", next to serial ports and the
 * simulator): the device list kept current, the settings remembered in the data directory
 * (audio-device.json, shared with the CLI), and the hub source that runs the capture and sends
 * the UI level reports instead of samples.
 */
export class Microphones {
  #devices: AudioDevice[] = [];
  /** Why the last listing failed, until one succeeds (shown in diagnostics). */
  #listProblem: string | null = null;
  #choice: AudioChoice | null;
  #active: Active | null = null;
  #unwatch: (() => void) | null = null;

  private constructor(private readonly d: MicrophonesDeps, choice: AudioChoice | null) {
    this.#choice = choice;
  }

  static async open(d: MicrophonesDeps): Promise<Microphones> {
    return new Microphones(d, await loadAudioChoice(d.dataDir, d.log));
  }

  /** Keeps the device list current until close(). */
  watch(): void {
    if (this.#unwatch) return;
    const offDevices = this.d.input.watchDevices((change) => {
      const before = this.#devices.map((x) => x.id).join('\n');
      this.#devices = change.devices;
      this.#listProblem = null;
      if (before !== change.devices.map((x) => x.id).join('\n')) this.d.onDevicesChanged();
    });
    // A stuck sound system found by a poll: the UI hears of it with the next sources list.
    const offProblems = this.d.input.problems?.on((p) => {
      // A stuck sound server lists nothing; a stuck JACK lock is worked around (ALSA), the list stays.
      if (p && (p.details as { stuck?: string } | undefined)?.stuck !== 'jack-metadata-lock') this.#devices = [];
      this.d.onDevicesChanged();
    });
    this.#unwatch = () => {
      offDevices();
      offProblems?.();
    };
  }

  /** The sound system in use and what is wrong with it, if anything (UI and diagnostics). */
  status(): AudioStatus {
    return { host: this.d.input.host?.reason ?? null, problem: this.d.input.problem?.message ?? this.#listProblem };
  }

  async refresh(): Promise<AudioDevice[]> {
    try {
      this.#devices = await this.d.input.listDevices();
      this.#listProblem = null;
    } catch (err) {
      this.#listProblem = err instanceof Error ? err.message : String(err);
      // No sound system is not an error of the app: it just has no microphones to offer.
      this.d.log.warn('could not list audio input devices', { error: String(err) });
      this.#devices = [];
    }
    return this.#devices;
  }

  /** The devices as last listed (nothing is opened or listed anew), and why listing failed if it did. */
  lastListing(): { devices: AudioDevice[]; problem: string | null; host: string | null } {
    const st = this.status();
    return { devices: [...this.#devices], problem: st.problem, host: st.host };
  }

  sources(isStreaming: (id: string) => boolean): Source[] {
    return this.#devices.map((dev) => {
      const id = AUDIO_PREFIX + dev.id;
      return { id, kind: 'audio' as const, name: dev.name, detail: dev.default ? 'microphone · system default' : 'microphone', streaming: isStreaming(id), default: dev.default };
    });
  }

  settings(): AudioSettings {
    return {
      deviceId: this.#choice?.deviceId ?? null,
      sampleRate: this.#choice?.sampleRate ?? DEFAULT_SAMPLE_RATE,
      preRollMs: this.#choice?.preRollMs ?? DEFAULT_PRE_ROLL_MS,
    };
  }

  async setSettings(patch: Partial<AudioSettings>): Promise<AudioSettings> {
    const before = this.settings();
    const next = AudioSettings.parse({ ...before, ...patch });
    const name = this.#devices.find((x) => x.id === next.deviceId)?.name ?? (next.deviceId === this.#choice?.deviceId ? this.#choice.name : '');
    const a = this.#active;
    if (a && next.sampleRate !== before.sampleRate && this.d.isRecording?.(a.sourceId)) {
      throw new CoreError('Busy', 'The microphone is being recorded; stop the recording before changing the sample rate.');
    }
    await this.#save({ deviceId: next.deviceId ?? 'default', name, sampleRate: next.sampleRate, preRollMs: next.preRollMs });
    // The live capture runs at the old rate: restart it so the meter and recordings use the new one.
    if (a && next.sampleRate !== before.sampleRate) {
      const st = await this.d.input.start({ deviceId: a.sourceId.slice(AUDIO_PREFIX.length), sampleRate: next.sampleRate });
      a.sink.info(this.#info(a.sourceId, st.sampleRate ?? next.sampleRate));
    }
    return this.settings();
  }

  /** Starts a microphone for the stream hub (registered for "audio:"). */
  readonly factory: SourceFactory = async (sourceId, _o, sink) => {
    const deviceId = sourceId.slice(AUDIO_PREFIX.length);
    if (!this.#devices.some((x) => x.id === deviceId)) await this.refresh();
    const device = this.#devices.find((x) => x.id === deviceId);
    if (!device) throw new CoreError('NotFound', `No microphone "${deviceId}" is connected. Plug it in, or pick another one from the device list.`);
    const other = this.#active && this.#active.sourceId !== sourceId ? this.#active.sourceId : null;
    if (other && this.d.isRecording?.(other)) throw new CoreError('Busy', 'Another microphone is being recorded (one capture at a time); stop that recording first.');
    if (other) await this.d.stopSource(other);
    const { sampleRate } = this.settings();
    await this.d.input.start({ deviceId, sampleRate });
    if (this.#choice?.deviceId !== deviceId) await this.#save({ ...this.#choice, deviceId, name: device.name }).catch((err: unknown) => this.d.log.warn('could not remember the microphone', { error: String(err) }));
    const active: Active = { sourceId, sink, offs: [] };
    const { input, bus } = this.d;
    active.offs.push(
      input.levels.on((r) => {
        const rate = input.status.sampleRate ?? sampleRate;
        bus.emit('audio.levels', { sourceId, sampleRate: rate, firstFrame: r.firstFrame, rmsDbfs: r.rmsDbfs, peakDbfs: r.peakDbfs, clipping: r.clipping, silent: r.silent, waveform: r.waveform, columnsPerSecond: r.columnsPerSecond });
      }),
      // Unplugged or taken mid-way: recordings end, the supervisor tries again and says when it is back.
      input.errors.on((err) => sink.interrupted(err)),
      input.states.on((st) => (st.state === 'capturing' && st.error === null ? sink.resumed() : undefined)),
    );
    this.#active = active;
    const running: RunningSource = {
      info: this.#info(sourceId, sampleRate),
      uiRows: false,
      stop: async () => {
        for (const off of active.offs.splice(0)) off();
        if (this.#active === active) {
          this.#active = null;
          await input.stop();
        }
      },
    };
    return running;
  };

  get activeSourceId(): string | null {
    return this.#active?.sourceId ?? null;
  }

  async close(): Promise<void> {
    this.#unwatch?.();
    this.#unwatch = null;
    await this.d.input.close();
  }

  #info(sourceId: string, rateHz: number): StreamInfo {
    return { sourceId, axes: AXES, rateHz, simulated: false };
  }

  async #save(choice: AudioChoice): Promise<void> {
    await saveAudioChoice(this.d.dataDir, choice);
    this.#choice = choice;
  }
}
