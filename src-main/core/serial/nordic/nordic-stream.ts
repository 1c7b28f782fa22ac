import { NordicFrameReader, type FrameStats } from './frame-reader.js';
import { LossLedger, type Gap } from './loss-ledger.js';
import type { NordicMessage, SensorData, SessionInfo } from './messages.js';

/** Rows of consecutive readings: a gap or a new session always ends a batch. */
export interface NordicBatch {
  /** rowCount × width values, row-major. A view of a reused buffer: valid only while the listener runs. */
  readonly rows: Float64Array;
  readonly rowCount: number;
  readonly width: number;
  /** When the chunk that completed these rows arrived (ms, the caller's clock). */
  readonly arrivalMs: number;
  /** The stream's reading number (samples received + lost, from 1) of the batch's last row. */
  readonly lines: number;
  /** Which part of the stream (a new sid starts the next), from 0. */
  readonly part: number;
}

/** A new session id: the board restarted. The readings up to `lastReading` were the previous part. */
export interface PartChange {
  readonly part: number;
  readonly sid: number;
  readonly previousSid: number | null;
  readonly lastReading: number;
}

export interface NordicSession {
  sid: number;
  hz: number;
  names: readonly string[];
  sensorType: number | null;
  deviceName: string;
}

/** Seq jumps larger than this either way re-baseline without counting losses (the digest's rule; it covers a 2³² wrap). */
const RESYNC_JUMP = 100_000;
/** Samples held while no session info has come, before the oldest are let go (at 1600 Hz × 9: ~60 s). */
const MAX_HELD_VALUES = 1_000_000;
const BATCH_VALUES = 16_384;

/**
 * A Nordic data-forwarder stream: frames → messages → rows in seq order, with the session (rate,
 * names, device) from the session info, every sequence gap written down as a known loss, and a new
 * sid starting a new part. Samples that come before the first session info are held (width from
 * their `val`) and handed on once it comes, or when `release()` says not to wait for it.
 */
export class NordicStreamReader {
  readonly #frames = new NordicFrameReader((m) => this.#message(m));
  readonly #losses = new LossLedger();
  readonly #listeners = new Set<(b: NordicBatch) => void>();
  readonly #partListeners = new Set<(c: PartChange) => void>();
  readonly #sessionListeners = new Set<(s: NordicSession) => void>();
  readonly #buf = new Float64Array(BATCH_VALUES);
  #used = 0;
  #rowCount = 0;
  #arrivalMs = 0;
  #session: NordicSession | null = null;
  #width: number | null = null;
  #part = 0;
  /** The next seq expected in this session; null until a sample is seen. */
  #nextSeq: number | null = null;
  #readings = 0;
  #received = 0;
  #shapeBad = 0;
  #reordered = 0;
  #resyncs = 0;
  /** Held before the first session info: values and (seq, ts) per row. */
  #held: { values: number[]; seq: number; ts: number }[] | null = [];
  #heldValues = 0;
  #heldDropped = 0;
  #released = false;
  /** dr of this boot's first session info, and the latest; drops of earlier boots. */
  #drBase = 0;
  #drLast = 0;
  #drEarlier = 0;
  /** The board's clock against its seq: first and latest (seq, ts) of the session. */
  #ts0: { seq: number; ts: number } | null = null;
  #tsLast: { seq: number; ts: number } | null = null;
  #valueForm: 'float' | 'int' | null = null;
  #sessionInfos = 0;

  push(chunk: Uint8Array, arrivalMs: number): void {
    this.#arrivalMs = arrivalMs;
    this.#frames.push(chunk);
    this.#flush();
  }

  onBatch(cb: (b: NordicBatch) => void): () => void {
    this.#listeners.add(cb);
    return () => void this.#listeners.delete(cb);
  }

  /** A new sid (the board restarted): the current part ends. */
  onPart(cb: (c: PartChange) => void): () => void {
    this.#partListeners.add(cb);
    return () => void this.#partListeners.delete(cb);
  }

  /** Session info that changed what the stream is (first one, new names or rate). */
  onSession(cb: (s: NordicSession) => void): () => void {
    this.#sessionListeners.add(cb);
    return () => void this.#sessionListeners.delete(cb);
  }

  get session(): NordicSession | null {
    return this.#session;
  }

  /** Channels per sample once known (from the session info, or the first sample before it). */
  get width(): number | null {
    return this.#session?.names.length ?? this.#width;
  }

  get frameStats(): FrameStats {
    return this.#frames.stats;
  }

  /** Stop holding samples for a session info that has not come: hand them on with placeholder names. */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.#releaseHeld();
    this.#flush();
  }

  /** The rate from the board's own timestamps (samples per second of `ts`), once a second of them is seen. */
  get tsHz(): number | null {
    const a = this.#ts0;
    const b = this.#tsLast;
    if (!a || !b || b.ts - a.ts < 1000) return null;
    return ((b.seq - a.seq) * 1000) / (b.ts - a.ts);
  }

  lostBefore(reading: number): number {
    return this.#losses.lostBefore(reading);
  }

  gapsBetween(firstReading: number, lastReading: number): Gap[] {
    return this.#losses.between(firstReading, lastReading);
  }

  stats() {
    const f = this.#frames.stats;
    const device = this.#drEarlier + Math.max(0, this.#drLast - this.#drBase);
    return {
      received: this.#received,
      readings: this.#readings,
      lost: this.#losses.lost,
      /** Samples the board says it dropped (growth of `dr` since the first session info, over every boot). */
      deviceDrops: device,
      /** Lost on the way: gaps the board's `dr` does not account for. */
      transportLost: Math.max(0, this.#losses.lost - this.#losses.device),
      frames: f.frames,
      crc: f.withCrc > 0 && f.withoutCrc === 0 ? true : f.withoutCrc > 0 && f.withCrc === 0 ? false : f.frames ? ('mixed' as const) : null,
      valueForm: this.#valueForm,
      badByKind: { ...f.bad, shape: f.bad.shape + this.#shapeBad },
      badTotal: f.badTotal + this.#shapeBad,
      lastBad: f.lastBad,
      reordered: this.#reordered,
      resyncs: this.#resyncs,
      parts: this.#part + 1,
      /** Session infos seen: a take waits for the next one to learn whose its gaps were. */
      sessionInfos: this.#sessionInfos,
      heldDropped: this.#heldDropped,
      tsHz: this.tsHz,
    };
  }

  #message(m: NordicMessage): void {
    if (m.type === 'si') this.#sessionInfo(m);
    else this.#sample(m);
  }

  #sessionInfo(si: SessionInfo): void {
    this.#sessionInfos++;
    const prev = this.#session;
    if (prev && (prev.sid !== si.sid || prev.names.length !== si.names.length || prev.names.some((n, i) => n !== si.names[i]))) {
      // The board restarted (or changed its channels): this part ends here and the next begins.
      this.#flush();
      this.#part++;
      this.#nextSeq = null;
      this.#ts0 = this.#tsLast = null;
      if (prev.sid !== si.sid) {
        this.#drEarlier += Math.max(0, this.#drLast - this.#drBase);
        this.#drBase = this.#drLast = si.drops;
      }
      const change: PartChange = { part: this.#part, sid: si.sid, previousSid: prev.sid, lastReading: this.#readings };
      this.#session = sessionOf(si);
      this.#width = si.names.length;
      for (const cb of [...this.#partListeners]) cb(change);
      for (const cb of [...this.#sessionListeners]) cb(this.#session);
      return;
    }
    if (!prev) {
      this.#drBase = this.#drLast = si.drops;
      this.#session = sessionOf(si);
      if (this.#width !== null && this.#width !== si.names.length) {
        // Samples of another width came before it: not this session's (counted, not kept).
        this.#shapeBad += this.#held?.length ?? 0;
        this.#held = [];
        this.#heldValues = 0;
      }
      this.#width = si.names.length;
      for (const cb of [...this.#sessionListeners]) cb(this.#session);
      this.#releaseHeld();
      return;
    }
    // Every session info, grown or not: its drops are matched against the gaps since the last one.
    this.#losses.deviceDropped(Math.max(0, si.drops - this.#drLast));
    this.#drLast = Math.max(this.#drLast, si.drops);
    if (prev.hz !== si.hz || prev.deviceName !== si.deviceName || prev.sensorType !== si.sensorType) {
      this.#session = sessionOf(si);
      for (const cb of [...this.#sessionListeners]) cb(this.#session);
    }
  }

  #sample(sd: SensorData): void {
    const width = this.#session?.names.length ?? this.#width;
    if (width !== null && sd.values.length !== width) {
      this.#shapeBad++;
      return;
    }
    this.#width ??= sd.values.length;
    this.#valueForm = sd.form;
    if (!this.#session && !this.#released) {
      this.#hold(sd);
      return;
    }
    this.#accept(sd.seq, sd.ts, sd.values);
  }

  #hold(sd: SensorData): void {
    const held = (this.#held ??= []);
    held.push({ values: sd.values as number[], seq: sd.seq, ts: sd.ts });
    this.#heldValues += sd.values.length;
    while (this.#heldValues > MAX_HELD_VALUES) {
      const old = held.shift()!;
      this.#heldValues -= old.values.length;
      this.#heldDropped++;
    }
  }

  #releaseHeld(): void {
    const held = this.#held ?? [];
    this.#held = null;
    this.#heldValues = 0;
    for (const h of held) this.#accept(h.seq, h.ts, h.values);
  }

  #accept(seq: number, ts: number, values: readonly number[]): void {
    const expected = this.#nextSeq;
    if (expected !== null && seq !== expected) {
      const ahead = (seq - expected) >>> 0; // modulo 2³²: a wrap is a small step
      if (ahead > 0 && ahead <= RESYNC_JUMP) {
        this.#flush(); // a batch holds consecutive readings only
        this.#losses.add(this.#readings + 1, expected, ahead, this.#part);
        this.#readings += ahead;
      } else if (((expected - seq) >>> 0) <= RESYNC_JUMP) {
        // Older than what came already (a repeat, or out of order): the rows before it are out, so it cannot go in.
        this.#reordered++;
        return;
      } else {
        this.#flush();
        this.#resyncs++;
        this.#ts0 = null;
      }
    }
    this.#nextSeq = (seq + 1) >>> 0;
    if (!this.#ts0) this.#ts0 = { seq, ts };
    this.#tsLast = { seq: this.#ts0.seq + ((seq - this.#ts0.seq) >>> 0), ts: this.#ts0.ts + ((ts - this.#ts0.ts) >>> 0) };
    this.#readings++;
    this.#received++;
    const w = values.length;
    if (this.#used + w > this.#buf.length) this.#flush();
    for (let i = 0; i < w; i++) this.#buf[this.#used++] = values[i]!;
    this.#rowCount++;
  }

  #flush(): void {
    if (this.#rowCount === 0) return;
    const batch: NordicBatch = {
      rows: this.#buf.subarray(0, this.#used),
      rowCount: this.#rowCount,
      width: this.#used / this.#rowCount,
      arrivalMs: this.#arrivalMs,
      lines: this.#readings,
      part: this.#part,
    };
    this.#used = 0;
    this.#rowCount = 0;
    for (const cb of [...this.#listeners]) cb(batch);
  }
}

function sessionOf(si: SessionInfo): NordicSession {
  return { sid: si.sid, hz: si.hz, names: si.names, sensorType: si.sensorType, deviceName: si.deviceName };
}
