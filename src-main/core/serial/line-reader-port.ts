import type { StreamStats } from '../contract/contract.js';
import type { RowTiming } from '../stream/stream-hub.js';

/** What the serial line source needs from a numeric-line reader (framing, parsing, rate). */
export interface LineReaderPort {
  push(chunk: Buffer, atMs: number): void;
  onRows(cb: (values: ArrayLike<number>, rows: number, axisCount: number, timing: RowTiming) => void): void;
  snapshot(): LineReaderSnapshot;
  /** Readings found lost before reading number `line` (RowTiming.lines counts readings). */
  lostBefore(line: number): number;
}

export interface LineReaderSnapshot extends Omit<StreamStats, 'sourceId'> {
  /** Axis names from a header line or name:value pairs; null until known. */
  names: string[] | null;
  /** Numbers per line once settled; null until known. */
  width: number | null;
}

export interface LineReaderOverrides {
  frequencyHz: number | null;
  axes: string[] | null;
}
