import { join } from 'node:path';
import type { Sample, StreamInfo, StructuredLabel } from '../contract/contract.js';
import { CoreError } from '../errors.js';
import type { SampleStore } from '../samples/sample-store.js';
import type { RowTiming, StreamHub } from '../stream/stream-hub.js';
import { RECORDINGS_DIR } from '../recordings/recordings-folder.js';
import { SensorRecorder } from './sensor-recorder.js';
import type { RecordingRequest } from './stream-recording.js';
import { takeName } from '../samples/take-name.js';

/** A stream recording's request, with the length counted at the board's own rate. */
export interface PartedRequest extends Omit<RecordingRequest, 'length'> {
  /** The take's set length, counted in the board's samples at `rateHz` over all parts; null: until finish(). */
  lengthMs: number | null;
  /** The board's own rate (a Nordic board says it): exact, so the count is exact. */
  rateHz: number;
  /** The take begins at begin(), not at start (see RecordingRequest.beginsLater). */
  beginsLater?: boolean;
}

/** One part of a take: the samples of one board session. */
export interface TakePart {
  readonly index: number;
  /** Rows kept in this part. */
  rows: number;
  /** The source's reading numbers (RowTiming.lines) of the part's first and last row. */
  firstReading: number | null;
  lastReading: number | null;
  /** Why it ended: the board restarted, or the take did. */
  endedBy: 'restart' | null;
  /** The source's words for the restart (session ids), when it ended by one. */
  restart: Record<string, unknown> | null;
  readonly opening: Promise<SensorRecorder>;
  recorder: SensorRecorder | null;
  /** Rows that came while its recorder was being opened (copies; a few ms of them). */
  held: Array<{ values: Float64Array; rows: number; timing: RowTiming | undefined }>;
  /** The take began after this many of `held` (begin() came while the recorder was being opened). */
  heldBeforeBegin: number | null;
}

/**
 * A take from a board that can restart mid-way (a Nordic board: a new session id starts its seq
 * and time over): the rows of each session go to a sample of their own, never joined, and the
 * take's set length is counted over all of them. The source says a restart by interrupting with
 * `details.restarted`; any other interruption (unplugged) ends the take.
 */
export class PartedRecording {
  readonly parts: TakePart[] = [];
  interruption: unknown = null;
  #total = 0;
  readonly #target: number | null;
  #full = false;
  #begun: boolean;
  #untap: () => void = () => {};
  readonly #onFull: Array<() => void> = [];
  readonly #onInterrupt: Array<(err: unknown) => void> = [];

  private constructor(
    private readonly hub: StreamHub,
    private readonly store: SampleStore,
    readonly request: PartedRequest,
    readonly info: StreamInfo,
  ) {
    this.#target = request.lengthMs === null ? null : Math.max(1, Math.round((request.lengthMs * request.rateHz) / 1000));
    this.#begun = !request.beginsLater;
  }

  /**
   * The take begins with the next sample: what came before is left out of it (parts the board
   * ended by restarting before then are dropped whole) and its length is counted from here.
   */
  begin(): void {
    if (this.#begun) return;
    this.#begun = true;
    for (const p of this.parts) {
      p.rows = 0;
      p.firstReading = null;
      p.lastReading = null;
    }
    const part = this.parts.at(-1)!;
    if (part.recorder) part.recorder.beginTakeHere();
    else part.heldBeforeBegin = part.held.length;
    this.#total = 0;
  }

  static async start(hub: StreamHub, store: SampleStore, req: PartedRequest): Promise<PartedRecording> {
    const info = hub.info(req.sourceId);
    if (!info) throw new CoreError('NotFound', `"${req.sourceId}" is not streaming; start it before recording.`);
    const rec = new PartedRecording(hub, store, req, info);
    await rec.#newPart().opening;
    rec.#untap = hub.tap(req.sourceId, (values, rows, now, timing) => rec.#rows(values, rows, now, timing), (err) => rec.#interrupted(err));
    return rec;
  }

  /** Rows kept over all parts. */
  get rows(): number {
    return this.#total;
  }

  get target(): number | null {
    return this.#target;
  }

  get full(): boolean {
    return this.#full;
  }

  onFull(cb: () => void): void {
    if (this.#full) cb();
    else this.#onFull.push(cb);
  }

  onInterrupt(cb: (err: unknown) => void): void {
    this.#onInterrupt.push(cb);
  }

  #newPart(): TakePart {
    const dir = join(this.store.dataDir, RECORDINGS_DIR);
    const part: TakePart = {
      index: this.parts.length, rows: 0, firstReading: null, lastReading: null, endedBy: null, restart: null, recorder: null, held: [], heldBeforeBegin: null,
      opening: SensorRecorder.start(dir, {
        ...(this.request.deviceName === undefined ? {} : { deviceName: this.request.deviceName }),
        deviceType: this.request.deviceType,
        sensors: this.info.axes,
        context: { sourceId: this.request.sourceId, label: this.request.label, category: this.request.category, metadata: this.request.metadata, intervalMs: 1000 / this.request.rateHz, part: this.parts.length },
      }),
    };
    void part.opening.then((r) => {
      part.recorder = r;
      r.onFailure((err) => this.#interrupted(err));
      const held = part.held.splice(0);
      for (const [i, h] of held.entries()) {
        if (i === part.heldBeforeBegin) r.beginTakeHere();
        r.append(h.values, h.rows, h.timing);
      }
      if (part.heldBeforeBegin === held.length) r.beginTakeHere();
    }, (err: unknown) => this.#interrupted(err));
    this.parts.push(part);
    return part;
  }

  #rows(values: ArrayLike<number>, rows: number, now: StreamInfo, timing: RowTiming | undefined): void {
    if (this.interruption || this.#full) return;
    if (now.axes.length !== this.info.axes.length) return; // another shape cannot join this take
    const keep = this.#target === null || !this.#begun ? rows : Math.max(0, Math.min(rows, this.#target - this.#total));
    if (keep === 0) return;
    const part = this.parts.at(-1)!;
    if (part.recorder) part.recorder.append(values, keep, timing);
    else part.held.push({ values: Float64Array.from({ length: keep * now.axes.length }, (_, i) => values[i]!), rows: keep, timing });
    if (timing) {
      part.firstReading ??= timing.lines - rows + 1;
      part.lastReading = timing.lines - (rows - keep);
    }
    part.rows += keep;
    this.#total += keep;
    if (this.#begun && this.#target !== null && this.#total >= this.#target) {
      this.#full = true;
      for (const cb of this.#onFull.splice(0)) cb();
    }
  }

  #interrupted(err: unknown): void {
    const details = err instanceof CoreError ? (err.details as Record<string, unknown> | undefined) : undefined;
    if (details?.['restarted'] === true && !this.interruption && !this.#full) {
      const part = this.parts.at(-1)!;
      if (part.rows > 0) {
        part.endedBy = 'restart';
        part.restart = details;
        this.#newPart();
      }
      return;
    }
    if (this.interruption) return;
    this.interruption = err;
    for (const cb of this.#onInterrupt) cb(err);
  }

  /**
   * Saves every part with rows as a sample of its own. `extra(part)` adds the facts of each part
   * (its losses); the note of a take in several parts says which part each is and why.
   */
  async finish(o: {
    hmacKey?: string | undefined;
    queue?: boolean;
    extra: (part: TakePart) => Record<string, unknown>;
    note?: string | null;
    /** The take was cut short (why), so its last part is incomplete. */
    cutShort?: string | undefined;
    /** Labels over a part's rows, from `offset` rows into the take. */
    structuredLabels?: (offset: number, rows: number) => StructuredLabel[] | null;
  }): Promise<Sample[]> {
    this.#untap();
    const intervalMs = 1000 / this.request.rateHz;
    const withRows = this.parts.filter((p) => p.rows > 0);
    const samples: Sample[] = [];
    let offset = 0;
    for (const part of this.parts) {
      const recorder = await part.opening;
      if (part.rows === 0) {
        await recorder.discard();
        continue;
      }
      const n = withRows.indexOf(part);
      const name = takeName(this.request.label, `${recorder.id.slice(0, 8)}${withRows.length > 1 ? `.part${n + 1}` : ''}.cbor`);
      let reserved!: { id: string; tempPath: string };
      // Reserved by the recorder: a refusal there keeps the part's rows and says where.
      const { rows } = await recorder.finish(() => (reserved = this.store.reserveFile('.cbor')).tempPath, { intervalMs, hmacKey: o.hmacKey });
      const partNote = withRows.length > 1
        ? `part ${n + 1} of ${withRows.length} of one take: ${part.endedBy === 'restart' ? 'the board restarted after it' : n > 0 ? 'the board had restarted before it' : ''}` +
          ' (a new session: its seq and time start over, so the parts are kept apart, never joined)'
        : null;
      const last = part === this.parts.at(-1);
      const incomplete = last && (this.interruption !== null || o.cutShort !== undefined);
      const why = !incomplete ? null : o.cutShort !== undefined ? `incomplete: ${o.cutShort}` : 'incomplete: the source stopped during the capture';
      const structuredLabels = o.structuredLabels?.(offset, rows) ?? null;
      offset += rows;
      samples.push(await this.store.commitFile(reserved, {
        name, kind: 'sensor', label: this.request.label, category: this.request.category, metadata: this.request.metadata,
        structuredLabels, lengthMs: rows * intervalMs, incomplete, queue: (o.queue ?? false) && !incomplete,
        note: [o.note, partNote, why].filter(Boolean).join('; ') || null,
        extra: { rows, interval_ms: intervalMs, ...(withRows.length > 1 ? { part: n + 1, parts: withRows.length } : {}), ...o.extra(part) },
      }));
    }
    if (samples.length === 0) throw new CoreError('InvalidArguments', 'Nothing was recorded: no samples arrived from the board.');
    return samples;
  }

  /** Deletes what was recorded (a person's explicit "Discard"). */
  async discard(): Promise<void> {
    this.#untap();
    for (const part of this.parts) await (await part.opening).discard();
  }
}
