import type { BadLineReason } from './bad-lines.js';

/**
 * Where parsed rows go. Called once per row with a reused array: copy `values[0, width)` out.
 * A batcher implements this and hands its listeners whole chunks of rows.
 */
export interface RowSink {
  row(values: Float64Array, width: number): void;
  /** A line was rejected here, so whoever records the rows can record that too. */
  rejected(reason: BadLineReason): void;
}

/** How a line holds its values: plain numbers, or name:value pairs. */
export type Layout = 'values' | 'pairs';
