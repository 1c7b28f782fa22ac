import type { StreamStats } from '../contract/contract.js';
import type { RowTiming } from '../stream/stream-hub.js';

/** What the serial line source needs from a numeric-line reader (framing, parsing, rate). */
export interface LineReaderPort {
  push(chunk: Buffer, atMs: number): void;
  onRows(cb: (values: ArrayLike<number>, rows: number, axisCount: number, timing: RowTiming) => void): void;
  snapshot(): LineReaderSnapshot;
  /** Readings found lost before reading number `line` (RowTiming.lines counts readings). */
  lostBefore(line: number): number;
  /** Readings whose losses are settled: a take's loss count is final once this reaches its last reading. */
  judgedThrough(): number;
  /** The given rate, or the estimate as it stands (no refit: cheap for every batch); null until known. */
  currentRate(): { frequencyHz: number; relativeError: number } | null;
}

export interface LineReaderSnapshot extends Omit<StreamStats, 'sourceId'> {
  /** Axis names from a header line or name:value pairs; null until known. */
  names: string[] | null;
  /** Numbers per line once settled; null until known. */
  width: number | null;
  /** Units per axis when the board says them (a Nordic sensor type); else absent. */
  units?: string[] | null;
}

export interface LineReaderOverrides {
  frequencyHz: number | null;
  axes: string[] | null;
  /** What the board speaks: 'auto' tells numbers per line from Nordic's data forwarder by the stream. Default 'lines'. */
  protocol?: 'auto' | 'lines' | 'nordic';
}

/** A Nordic board restarted (new session id): the part of the stream up to reading `lastReading` is over. */
export interface StreamPartChange {
  part: number;
  lastReading: number;
  sid: number;
  previousSid: number | null;
}

/** A reader that may meet a Nordic board: which protocol it found, and its parts and known losses. */
export interface SerialReaderPort extends LineReaderPort {
  protocol(): 'lines' | 'nordic' | null;
  onPart(cb: (c: StreamPartChange) => void): void;
  /** Nordic: stop waiting for the session info and hand on the samples held meanwhile. */
  release(): void;
  /** Nordic: the known gaps after reading `first` up to `last` (always empty for lines). */
  gapsBetween(first: number, last: number): KnownGap[];
}

/** A sequence gap: `count` samples never arrived from reading `reading` on; `device` of them the board dropped itself. */
export interface KnownGap {
  reading: number;
  seq: number;
  count: number;
  device: number;
}
