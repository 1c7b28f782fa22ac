import type { StreamBatch, StreamInfo } from '../../../src-main/core/contract.js';
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
  batchesReceived = $state(0);
  /** Batches the core skipped because this client fell behind (from seq gaps). */
  batchesMissed = $state(0);
  series: RingSeries | null = null;
  #lastSeq = -1;
  #unsubscribe: (() => void) | null = null;

  constructor(private readonly api: Api) {}

  async start(sourceId: string): Promise<void> {
    this.stopListening();
    const info = await this.api.call('stream.start', { sourceId });
    this.info = info;
    this.series = new RingSeries(info.axes.length, info.rateHz * WINDOW_SECONDS);
    this.rowsReceived = 0;
    this.batchesReceived = 0;
    this.batchesMissed = 0;
    this.#lastSeq = -1;
    this.#unsubscribe = this.api.on('stream.batch', (b) => {
      if (b.sourceId === sourceId) this.#accept(b);
    });
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
    this.batchesReceived += 1;
  }
}
