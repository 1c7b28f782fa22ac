import type { StreamStats } from '../contract/contract.js';
import { CoreError } from '../errors.js';
import type { EventBus } from '../event-bus.js';
import type { AtBoards } from '../handlers/at-board.js';
import type { RecordingService } from '../capture/recording-service.js';
import type { StreamHub } from '../stream/stream-hub.js';
import type { PortRegistry } from '../serial/port-registry.js';
import type { SerialOpener } from '../serial/byte-link.js';
import type { Microphones } from '../audio/microphones.js';
import { CAPTURE_DESK_DEVICE_TYPE, linesSensor, microphoneSensor } from './device-identity.js';
import type { DeviceDescription } from './remote-link.js';
import type { RemoteSensor } from '../contract/remote-schema.js';

/** One take the platform asked for, as a backend records it. */
export interface TakeOrder {
  label: string;
  lengthMs: number;
  category: 'training' | 'validation' | 'testing' | 'post-processing';
  sensor: RemoteSensor;
  /** The request's interval, when the device can use it (AT boards); others use their own rate. */
  intervalMs: number | null;
  note: string;
  fallbackHmacKey: string | undefined;
  platform: { deviceId: string; collectedSampleCount: number | null; targetSampleCount: number | null };
  /** Aborted when Capture Desk closes before the take reached its length: it ends now, kept as incomplete and not uploaded. */
  cut?: AbortSignal | undefined;
}

export interface TakeEvents {
  /** Recording has begun on the device (spec: sampleStarted). */
  started(): void;
  /** Reading back from the board, 0..100 (spec: sampleReading). */
  reading(percent: number): void;
  /** Encoding and saving (spec: sampleProcessing). */
  processing(): void;
}

/**
 * How one kind of source describes itself and records a take. `take` throws before anything is
 * recorded when the source cannot honour the request (busy, unplugged), so the request is refused
 * with nothing half-done; once recording has begun, what arrived is kept whatever happens.
 * It resolves with the saved samples' ids: one, or one per part when a board restarted mid-take.
 */
export interface DeviceBackend {
  readonly kind: 'lines' | 'at' | 'microphone';
  describe(defaultId: string): Promise<DeviceDescription>;
  take(order: TakeOrder, ev: TakeEvents): Promise<string[]>;
}

export interface BackendDeps {
  hub: StreamHub;
  bus: EventBus;
  recordings: RecordingService;
  ports: PortRegistry;
  opener: SerialOpener;
  at: AtBoards;
  mics: Microphones | null;
  /** Last stream stats per source (the bus's, kept by the service). */
  stats: (sourceId: string) => StreamStats | undefined;
  /** Why a running stream is not delivering now (unplugged, waiting for it to come back), else null. */
  lost: (sourceId: string) => string | null;
}

/** How long a numeric board may take to show a steady rate before it can be announced. */
const RATE_WAIT_MS = 10_000;
/** How long after its first estimate the rate may take to settle before it is announced anyway. */
const RATE_SETTLE_MS = 3_000;

/** Takes through the recording service: exactly what the app records when a person presses Record. */
async function serviceTake(d: BackendDeps, sourceId: string, order: TakeOrder, ev: TakeEvents): Promise<string[]> {
  let sessionId: string | null = null;
  let offCut = () => {};
  const offSaving = d.bus.on('record.state', (s) => {
    if (s.sessionId === sessionId && s.state === 'saving') ev.processing();
  });
  try {
    const status = await d.recordings.start({
      sourceIds: [sourceId], label: order.label, category: order.category, lengthMs: order.lengthMs, queue: true,
      note: order.note, fallbackHmacKey: order.fallbackHmacKey, preRollMs: 0,
      platform: { deviceId: order.platform.deviceId, label: order.label, lengthMs: order.lengthMs, collectedSampleCount: order.platform.collectedSampleCount, targetSampleCount: order.platform.targetSampleCount },
    });
    sessionId = status.sessionId;
    const cut = () => {
      const reason = `Capture Desk was closed before the ${order.lengthMs} ms the platform asked for were recorded; what was recorded is kept on this computer and not uploaded`;
      void d.recordings.stop(status.sessionId, { cutShort: reason }).catch(() => {});
    };
    if (order.cut?.aborted) cut();
    else order.cut?.addEventListener('abort', cut, { once: true });
    offCut = () => order.cut?.removeEventListener('abort', cut);
    ev.started();
    const final = await d.recordings.settled(status.sessionId);
    if (final.state === 'failed' || final.sampleIds.length === 0) throw new CoreError('Unavailable', final.error ?? 'The take could not be saved.');
    return final.sampleIds;
  } finally {
    offSaving();
    offCut();
  }
}

/** A board printing numbers, one reading per line (what the platform's data forwarder reads). */
export function linesBackend(d: BackendDeps, sourceId: string): DeviceBackend {
  /** The rate the last hello announced: a reconnect whose stream still measures it need not wait again. */
  let announced: number | null = null;
  return {
    kind: 'lines',
    async describe(defaultId) {
      // The hello names the axes and the measured rate, so the stream runs while connected
      // (which also makes a requested take start at once).
      await d.hub.start(sourceId);
      const path = sourceId.slice('serial:'.length);
      const given = d.ports.settingsFor(path).frequencyHz;
      const end = Date.now() + RATE_WAIT_MS;
      // The first estimate of a freshly opened stream is rough (1 % off on a 100 Hz board, and
      // two successive ones can agree while both are 0.1 % off): the hello announces the rate
      // once the reader's own ~95 % interval is within ±0.05 % (over 1.5 s at least, two
      // estimates agreeing), or within ±0.1 % after RATE_SETTLE_MS, or what there is after twice
      // that (a jittery board).
      let hz = given;
      let last: StreamStats | undefined;
      let firstAt: number | null = null;
      while (hz === null) {
        const lost = d.lost(sourceId);
        if (lost) throw new CoreError('Disconnected', lost);
        if (Date.now() > end) throw new CoreError('Unavailable', `no steady sampling rate could be measured on ${path} within ${RATE_WAIT_MS / 1000} s; check that the board prints readings at a fixed rate, or set the frequency in the port's settings.`);
        const now = d.stats(sourceId);
        // A Nordic board says its rate (hz in its session info): nothing to measure or wait for.
        if (now?.protocol === 'nordic' && now.frequencyHz !== null) {
          hz = now.frequencyHz;
          break;
        }
        if (now && now !== last && now.frequencyHz !== null) {
          firstAt ??= Date.now();
          const rel = now.rateRelativeError ?? null;
          const waited = Date.now() - firstAt;
          // Under load the reader's interval is optimistic over the first second (late arrivals
          // come in runs), so "settled" also asks for 1.5 s of stream and agreement with the last.
          const agrees = last?.frequencyHz != null && Math.abs(now.frequencyHz / last.frequencyHz - 1) <= 0.0005;
          const reconnect = announced !== null && Math.abs(now.frequencyHz - announced) / announced < 0.001;
          if ((rel !== null && rel <= 0.0005 && agrees && waited >= 1500) || (rel !== null && rel <= 0.001 && waited > RATE_SETTLE_MS) || waited > 2 * RATE_SETTLE_MS || reconnect) hz = now.frequencyHz;
          last = now;
        }
        if (hz === null) await new Promise((r) => setTimeout(r, 100));
      }
      const info = d.hub.info(sourceId);
      if (!info) throw new CoreError('Disconnected', `${path} stopped streaming.`);
      if (given === null) announced = hz;
      return {
        deviceId: defaultId, deviceType: CAPTURE_DESK_DEVICE_TYPE, sensors: [linesSensor(info.axes.map((a) => a.name), hz)],
        ...(info.baud ? { baud: { rate: info.baud.rate, detected: info.baud.detected } } : {}),
      };
    },
    async take(order, ev) {
      const lost = d.lost(sourceId);
      if (lost) throw new CoreError('Disconnected', `${lost.replace(/\.?\s*Waiting for it to come back…?$/, '')}. Plug the board back in, then ask again.`);
      return serviceTake(d, sourceId, order, ev);
    },
  };
}

/** A microphone (what the platform's Linux client offers): 16-bit mono WAV at the capture's rate. */
export function microphoneBackend(d: BackendDeps, sourceId: string): DeviceBackend {
  return {
    kind: 'microphone',
    async describe(defaultId) {
      if (!d.mics) throw new CoreError('Unavailable', 'this shell has no microphone capture.');
      const info = await d.hub.start(sourceId);
      return { deviceId: defaultId, deviceType: CAPTURE_DESK_DEVICE_TYPE, sensors: [microphoneSensor(info.rateHz)] };
    },
    async take(order, ev) {
      const lost = d.lost(sourceId);
      if (lost) throw new CoreError('Disconnected', `The microphone is not delivering audio (${lost}). Check that it is plugged in, then ask again.`);
      return serviceTake(d, sourceId, order, ev);
    },
  };
}

/** A board running the platform's official firmware: it samples on its own, we read it back (AT commands), as the platform's daemon does. */
export function atBackend(d: BackendDeps, sourceId: string): DeviceBackend {
  const path = sourceId.slice('serial:'.length);
  let known: DeviceDescription | null = null;
  return {
    kind: 'at',
    async describe() {
      // The board is asked once per connection: while it samples for the platform its port is busy.
      if (known && d.at.isBusy(path)) return known;
      const c = await d.at.readConfig(path);
      known = {
        deviceId: c.deviceId,
        deviceType: c.deviceType || 'UNKNOWN_BOARD',
        // Sensors as the firmware lists them; a board that gives no maximum is offered a minute.
        sensors: c.sensors.map((s) => ({ name: s.name, maxSampleLengthS: s.maxSampleLengthS ?? 60, frequencies: s.frequencies })),
      };
      return known;
    },
    async take(order, ev) {
      if (d.at.isBusy(path)) throw new CoreError('Busy', `The board at ${path} is busy with another sample or command; ask again when it is done.`);
      if (!(await d.opener.exists(path))) throw new CoreError('Disconnected', `The board at ${path} is unplugged. Plug it back in, then ask again.`);
      const frequencyHz = order.intervalMs ? pickFrequency(order.sensor, 1000 / order.intervalMs) : undefined;
      // The firmware says "Processing..." on the board before the read-back; the platform hears
      // sampleProcessing after the readings (the spec's order), when we decode and save.
      let processed = false;
      const processing = () => {
        if (!processed) ev.processing();
        processed = true;
      };
      const sample = await d.at.record(
        { path, sensor: order.sensor.name, frequencyHz, lengthMs: order.lengthMs, label: order.label, category: order.category, queue: true },
        {
          fallbackHmacKey: order.fallbackHmacKey,
          note: order.note,
          onProgress: (p) => {
            if (p.kind === 'stage' && p.stage === 'sampling') ev.started();
            else if (p.kind === 'reading') {
              ev.reading(p.totalBytes ? Math.min(100, Math.round((100 * p.receivedBytes) / p.totalBytes)) : 0);
              if (p.totalBytes && p.receivedBytes >= p.totalBytes) processing();
            }
          },
        },
      );
      processing();
      return [sample.id];
    },
  };
}

/** The board's own frequency nearest to the one asked for (it can only sample at those). */
function pickFrequency(sensor: RemoteSensor, wanted: number): number | undefined {
  if (!sensor.frequencies.length) return undefined;
  return sensor.frequencies.reduce((best, f) => (Math.abs(f - wanted) < Math.abs(best - wanted) ? f : best));
}
