import type { StreamBatch, StreamInfo, StreamStats, WireError } from '../../../src-main/core/contract/contract.js';
import type { Api } from '../api/client.js';
import { RingSeries } from '../plot/ring-series.js';

const WINDOW_SECONDS = 10;

/**
 * The live view of one source: batches go into a ring buffer that the plot reads on its own
 * animation frame; only small counters are reactive, never the sample arrays.
 */
export class LiveStream {
  info = $state.raw<StreamInfo | null>(null);
  rowsReceived = $state(0);
  /**
   * The stream's row index just past the newest row received (a batch's firstIndex + its rows;
   * null before the first batch). It runs ahead of rowsReceived by the rows the stream had before
   * this view followed it and the batches it missed; verdicts are timed on it.
   */
  streamRows: number | null = null;
  batchesReceived = $state(0);
  /** Batches the core skipped because this client fell behind (from seq gaps). */
  batchesMissed = $state(0);
  /** Measured rate, jitter and rejected lines (serial boards); null for the simulator. */
  stats = $state.raw<StreamStats | null>(null);
  /** Set while the source is gone (unplugged), cleared when it is back. */
  problem = $state.raw<WireError | null>(null);
  series: RingSeries | null = null;
  #lastSeq = -1;
  #unsubscribe: (() => void) | null = null;

  constructor(private readonly api: Api) {}

  async start(sourceId: string): Promise<void> {
    this.stopListening();
    const info = await this.api.call('stream.start', { sourceId });
    this.info = info;
    this.series = new RingSeries(info.axes.length, Math.max(2, info.rateHz * WINDOW_SECONDS));
    this.rowsReceived = 0;
    this.streamRows = null;
    this.batchesReceived = 0;
    this.batchesMissed = 0;
    this.#lastSeq = -1;
    this.stats = null;
    this.problem = null;
    const offs = [
      this.api.on('stream.batch', (b) => {
        if (b.sourceId === sourceId) this.#accept(b);
      }),
      this.api.on('stream.stats', (st) => {
        if (st.sourceId === sourceId) this.stats = st;
      }),
      this.api.on('stream.info', (i) => {
        if (i.sourceId !== sourceId) return;
        // A new measured rate or axis count changes the window: start a fresh buffer.
        if (!this.info || i.axes.length !== this.info.axes.length || Math.abs(i.rateHz - this.info.rateHz) / this.info.rateHz > 0.05) {
          this.series = new RingSeries(i.axes.length, Math.max(2, i.rateHz * WINDOW_SECONDS));
        }
        this.info = i;
      }),
      this.api.on('stream.state', (st) => {
        if (st.sourceId !== sourceId) return;
        this.problem = st.state === 'error' ? (st.error ?? { code: 'Internal', message: 'The stream stopped.' }) : null;
      }),
    ];
    this.#unsubscribe = () => offs.forEach((off) => off());
  }

  /** Nothing to show (e.g. a board that records on its own). */
  clear(): void {
    this.stopListening();
    this.info = null;
    this.stats = null;
    this.problem = null;
    this.series = null;
  }

  stopListening(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = null;
  }

  #accept(b: StreamBatch): void {
    if (!this.series || b.axisCount !== this.series.axisCount) return;
    if (this.#lastSeq >= 0 && b.seq > this.#lastSeq + 1) this.batchesMissed += b.seq - this.#lastSeq - 1;
    this.#lastSeq = b.seq;
    this.series.append(b.values);
    this.rowsReceived += b.values.length / b.axisCount;
    this.streamRows = b.firstIndex + b.values.length / b.axisCount;
    this.batchesReceived += 1;
  }
}
