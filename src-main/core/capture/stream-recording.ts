import { join } from 'node:path';
import type { Category, Sample, StreamInfo, StructuredLabel } from '../contract/contract.js';
import { CoreError } from '../errors.js';
import type { SampleStore } from '../samples/sample-store.js';
import type { SourceReading, StreamHub } from '../stream/stream-hub.js';
import { PLACEHOLDER_INTERVAL_MS, RATE_MISSING_NOTE } from './recorded-rate.js';
import { RECORDINGS_DIR } from '../recordings/recordings-folder.js';
import { SensorRecorder } from './sensor-recorder.js';
import { TakeLength } from './take-length.js';
import { takeName } from '../samples/take-name.js';

export { PLACEHOLDER_INTERVAL_MS, RATE_MISSING_NOTE };

export interface RecordingRequest {
  sourceId: string;
  label: string | null;
  category: Category;
  metadata: Record<string, string>;
  deviceName?: string;
  deviceType: string;
  /**
   * A set length: the take keeps exactly round(length × rate) rows, counted at `rateHz()` (the
   * given rate or the reader's estimate), and says so through onFull(). Without it, every row
   * until finish() is kept.
   */
  length?: { ms: number; rateHz: () => number | null } | undefined;
  /**
   * The take begins at begin(), not at start: rows before it are recorded (kept should the session
   * never begin) but are not part of the take, nor counted towards its length.
   */
  beginsLater?: boolean;
}

export interface FinishOptions {
  /**
   * The sampling interval to declare; usually measured by the reader. null: nobody knows it (the
   * rate could not be measured and was not given): the rows are kept as a sample that waits for
   * its rate (see set-rate.ts) and cannot be queued until then.
   */
  intervalMs: number | null;
  hmacKey?: string | undefined;
  /** The source failed mid-way: the sample is kept and marked incomplete. */
  incomplete?: boolean;
  queue?: boolean;
  structuredLabels?: StructuredLabel[] | null;
  /** Facts for the record (e.g. rejected lines, measured jitter), kept with the sample. */
  extra?: Record<string, unknown>;
  note?: string | null;
  /** Keep only the take's first `rows` readings (see declaredTake); all of them when undefined. */
  rows?: number;
}

/**
 * How long a finished take waits for its reader to judge its last reading (see lostInTake): a
 * 200 Hz board behind a 16 ms USB latency timer needs ~3 s of later arrivals; a PTY a few ms.
 */
export const CONFIRM_MAX_MS = 3000;

/**
 * One capture from a live stream into a sample: every row the stream delivers from start to
 * stop goes to disk through a SensorRecorder (memory stays flat), then becomes an acquisition
 * file in the store.
 */
export class StreamRecording {
  #untap: () => void = () => {};
  #widthMismatch = 0;
  /** Set when the source dropped out mid-capture; the owner finishes the sample as incomplete. */
  interruption: unknown = null;
  #onInterrupt: Array<(err: unknown) => void> = [];
  /** The source's numbers (RowTiming.lines) of the first and last reading kept, when it counts them. */
  firstReading: number | null = null;
  lastReading: number | null = null;
  /** Counts the take to its set length; null when it runs until finish(). */
  readonly length: TakeLength | null;

  private constructor(
    readonly request: RecordingRequest,
    readonly info: StreamInfo,
    /** The source measures its rate (info.rateHz is an estimate that settles as rows arrive). */
    readonly rateMeasured: boolean,
    private readonly recorder: SensorRecorder,
    private readonly store: SampleStore,
  ) {
    this.length = request.length ? new TakeLength(request.length.ms, request.length.rateHz, !request.beginsLater) : null;
  }

  /**
   * The take begins with the next row (see RecordingRequest.beginsLater): the rows so far are left
   * out of the sample, its length is counted from here, and its readings are numbered from here.
   */
  begin(): void {
    this.recorder.beginTakeHere();
    this.length?.begin(this.recorder.rows);
    this.firstReading = null;
    this.lastReading = null;
  }

  static async start(hub: StreamHub, store: SampleStore, req: RecordingRequest): Promise<StreamRecording> {
    const info = hub.info(req.sourceId);
    if (!info) throw new CoreError('NotFound', `"${req.sourceId}" is not streaming; start it before recording.`);
    const rateMeasured = hub.measuresRate(req.sourceId);
    const recorder = await SensorRecorder.start(join(store.dataDir, RECORDINGS_DIR), {
      ...(req.deviceName === undefined ? {} : { deviceName: req.deviceName }),
      deviceType: req.deviceType,
      sensors: info.axes,
      // Enough to turn the rows into a sample should the process die before Stop (recording-recovery.ts).
      // A measured rate is only the first lines' estimate here: recovery measures it again from the
      // rows' arrival times (<id>.times); a given one is the rate.
      context: {
        sourceId: req.sourceId, label: req.label, category: req.category, metadata: req.metadata, intervalMs: 1000 / info.rateHz,
        ...(rateMeasured ? { rateMeasured: true } : {}),
      },
    });
    const rec = new StreamRecording(req, info, rateMeasured, recorder, store);
    // Disk full or the folder gone: the capture cannot go on, so it ends as if the source had (the rows written so far stay on disk).
    recorder.onFailure((err) => rec.#interrupt(err));
    rec.#untap = hub.tap(
      req.sourceId,
      (values, rows, now, timing) => {
        if (rec.interruption) return; // rows after a reconnect belong to the next capture
        // A board that changes its line width mid-capture cannot be one sample; count, don't mix.
        if (now.axes.length !== recorder.width) rec.#widthMismatch += rows;
        else {
          // Rows past the set length belong to no take: the first `keep` of the batch are the take's last.
          const keep = rec.length ? rec.length.accept(recorder.rows, rows, timing?.arrivalMs ?? performance.now()) : rows;
          if (keep > 0) {
            // Arrival times are kept (<id>.times) only where they measure the rate.
            recorder.append(values, keep, rateMeasured ? timing : undefined);
            if (timing) {
              // Which of the source's readings the take holds (a batch's rows are its last readings).
              rec.firstReading ??= timing.lines - rows + 1;
              rec.lastReading = timing.lines - (rows - keep);
            }
          }
        }
      },
      (err) => rec.#interrupt(err),
    );
    return rec;
  }

  #interrupt(err: unknown): void {
    if (this.interruption) return;
    this.interruption = err;
    for (const cb of this.#onInterrupt) cb(err);
  }

  onInterrupt(cb: (err: unknown) => void): void {
    this.#onInterrupt.push(cb);
  }

  /** Rows of the take (those before begin() not counted). */
  get rows(): number {
    return this.recorder.rows - this.recorder.skippedRows;
  }

  /** No more rows from here (the take is over); the source keeps streaming. */
  stopTaking(): void {
    this.#untap();
  }

  /**
   * The readings lost between the take's first and last reading, once the source has judged its
   * last one (a loss shows only in the arrivals after it; waited for up to `maxWaitMs`), wherever
   * in the stream they were found from: not those lost while the stream was being detected, nor
   * after the take. null when the source does not count its readings or the take holds none.
   * `minWaitMs`: read the stream at least that long after the take (a later estimate of the rate).
   */
  async lostInTake(reading: SourceReading | undefined, maxWaitMs: number, minWaitMs = 0): Promise<number | null> {
    this.stopTaking();
    const first = this.firstReading;
    const last = this.lastReading;
    if (!reading || first === null || last === null) return null;
    const from = performance.now();
    const waiting = () => this.interruption === null && performance.now() - from < maxWaitMs && (reading.judgedThrough() < last || performance.now() - from < minWaitMs);
    while (waiting()) await new Promise((r) => setTimeout(r, 25));
    return Math.max(0, reading.lostBefore(last) - reading.lostBefore(first));
  }

  async finish(o: FinishOptions): Promise<Sample> {
    this.#untap();
    const name = takeName(this.request.label, `${this.recorder.id.slice(0, 8)}.cbor`);
    let reserved!: { id: string; tempPath: string };
    const rateMissing = o.intervalMs === null;
    // Without a rate the rows are still written in the acquisition format (so the sample can be
    // looked at) but numbered 1 ms apart, unsigned; setSampleRate rewrites it once the rate is known.
    // The place is reserved by the recorder: a refusal there keeps the rows and says where.
    const { rows } = await this.recorder.finish(() => (reserved = this.store.reserveFile('.cbor')).tempPath, rateMissing ? { intervalMs: PLACEHOLDER_INTERVAL_MS } : { intervalMs: o.intervalMs!, hmacKey: o.hmacKey, ...(o.rows === undefined ? {} : { rows: o.rows }) });
    const extra = {
      rows, interval_ms: o.intervalMs, ...(this.#widthMismatch ? { rows_of_other_width: this.#widthMismatch } : {}), ...o.extra,
      ...(rateMissing ? { rate_missing: true, interrupted: o.incomplete ?? false } : {}),
    };
    if (rateMissing) {
      return this.store.commitFile(reserved, {
        name, kind: 'sensor', label: this.request.label, category: this.request.category, metadata: this.request.metadata,
        structuredLabels: o.structuredLabels ?? null, lengthMs: null, incomplete: true, queue: false,
        note: [o.note ?? (o.incomplete ? 'incomplete: the source stopped during the capture' : null), RATE_MISSING_NOTE].filter(Boolean).join('; '),
        extra,
      });
    }
    return this.store.commitFile(reserved, {
      name,
      kind: 'sensor',
      label: this.request.label,
      category: this.request.category,
      metadata: this.request.metadata,
      structuredLabels: o.structuredLabels ?? null,
      lengthMs: rows * o.intervalMs!,
      incomplete: o.incomplete ?? false,
      queue: o.queue ?? false,
      note: o.note ?? (o.incomplete ? 'incomplete: the source stopped during the capture' : null),
      extra,
    });
  }

  /** Deletes what was recorded. Only for a person's explicit "Discard"; every other end keeps the rows. */
  async discard(): Promise<void> {
    this.#untap();
    await this.recorder.discard();
  }
}
