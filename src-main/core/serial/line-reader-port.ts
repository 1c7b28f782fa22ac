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
}

export interface LineReaderOverrides {
  frequencyHz: number | null;
  axes: string[] | null;
}
