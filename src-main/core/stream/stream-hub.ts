import { DEMO_SOURCE_ID, type StreamInfo } from '../contract.js';
import type { Clock } from '../clock.js';
import { CoreError } from '../errors.js';
import type { EventBus } from '../event-bus.js';
import { SIMULATED_IMU_AXES, simulatedImuRow } from './simulated-imu.js';

/** The UI never needs more than one update per display frame. */
export const MAX_BATCHES_PER_SECOND = 60;
const TICK_MS = 1000 / MAX_BATCHES_PER_SECOND;
export const DEFAULT_DEMO_RATE_HZ = 100;

interface RunningStream {
  info: StreamInfo;
  stop(): void;
}

/**
 * Owns every live stream and turns rows into batches for the event bus. One batch carries all
 * rows that became due since the previous tick, so the message rate is bounded by the tick rate
 * whatever the sample rate.
 */
export class StreamHub {
  readonly #running = new Map<string, RunningStream>();
  readonly #bus: EventBus;
  readonly #clock: Clock;

  constructor(bus: EventBus, clock: Clock) {
    this.#bus = bus;
    this.#clock = clock;
  }

  isStreaming(sourceId: string): boolean {
    return this.#running.has(sourceId);
  }

  start(sourceId: string, rateHz?: number): StreamInfo {
    const existing = this.#running.get(sourceId);
    if (existing && (rateHz === undefined || existing.info.rateHz === rateHz)) return existing.info;
    if (existing) this.stop(sourceId); // a new rate restarts the simulation
    if (sourceId !== DEMO_SOURCE_ID) {
      throw new CoreError('Unavailable', `Streaming from "${sourceId}" is not available in this version; only the simulated sensor can stream.`);
    }
    const stream = this.#startSimulated(rateHz ?? DEFAULT_DEMO_RATE_HZ);
    this.#running.set(sourceId, stream);
    this.#bus.emit('stream.state', { sourceId, state: 'started' });
    return stream.info;
  }

  stop(sourceId: string): boolean {
    const s = this.#running.get(sourceId);
    if (!s) return false;
    s.stop();
    this.#running.delete(sourceId);
    this.#bus.emit('stream.state', { sourceId, state: 'stopped' });
    return true;
  }

  stopAll(): void {
    for (const id of [...this.#running.keys()]) this.stop(id);
  }

  #startSimulated(rateHz: number): RunningStream {
    const info: StreamInfo = { sourceId: DEMO_SOURCE_ID, axes: SIMULATED_IMU_AXES, rateHz, simulated: true };
    const axisCount = info.axes.length;
    const t0 = this.#clock.now();
    let produced = 0;
    let seq = 0;
    const cancel = this.#clock.every(TICK_MS, () => {
      const due = Math.floor(((this.#clock.now() - t0) * rateHz) / 1000);
      const rows = due - produced;
      if (rows <= 0) return;
      const values = new Float32Array(rows * axisCount);
      for (let r = 0; r < rows; r++) simulatedImuRow(produced + r, rateHz, values, r * axisCount);
      this.#bus.emit('stream.batch', { sourceId: DEMO_SOURCE_ID, seq: seq++, firstIndex: produced, axisCount, values, rateHz });
      produced = due;
    });
    return { info, stop: cancel };
  }
}
