import type { StreamStats } from '../../contract/contract.js';

/**
 * What the serial reader counted during one capture, for its quality checks: lines estimated as
 * lost in transit (the stream's counter at stop minus at start) and the rate it measured on the
 * wire, which can differ from the rate declared in the file when a frequency is set by hand.
 */
export function lossCounters(atStop: StreamStats | undefined, atStart: StreamStats | undefined): { dropped_lines?: number; measured_hz?: number } {
  if (!atStop) return {};
  return {
    dropped_lines: Math.max(0, atStop.droppedLines - (atStart?.droppedLines ?? 0)),
    ...(atStop.frequencyHz !== null ? { measured_hz: atStop.frequencyHz } : {}),
  };
}
