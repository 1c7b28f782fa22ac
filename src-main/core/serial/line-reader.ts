import type { LineReaderOverrides, LineReaderPort } from './line-reader-port.js';
import { NumericLineReader } from './lines/line-stream.js';

/** The numeric-line reader as the serial source uses it: rows out, one stats snapshot for the UI. */
export function createLineReader(o: LineReaderOverrides & { units?: string[] | null }): LineReaderPort {
  const axes = o.axes ?? o.units?.map(() => null) ?? null;
  const reader = new NumericLineReader({
    overrides: {
      frequencyHz: o.frequencyHz,
      axes: axes?.map((name, i) => ({ ...(name ? { name } : {}), ...(o.units?.[i] ? { units: o.units[i] } : {}) })) ?? null,
    },
  });
  return {
    push: (chunk, atMs) => reader.push(chunk, atMs),
    onRows(cb) {
      // The batch's array is reused by the reader: consumers copy what they keep (the hub and
      // the recorder both do, synchronously).
      reader.onBatch((b) => {
        if (b.rowCount > 0) cb(b.rows, b.rowCount, b.width, { arrivalMs: b.arrivalMs, lines: b.lines });
      });
    },
    lostBefore: (line) => reader.lostBefore(line),
    judgedThrough: () => reader.judgedThrough(),
    currentRate: () => reader.currentRate(),
    snapshot() {
      const s = reader.stats();
      return {
        names: s.width === null ? null : s.axes.map((a) => a.name),
        width: s.width,
        frequencyHz: s.frequencyHz,
        suggestedHz: s.rate.suggestedHz,
        jitterMs: s.rate.jitterMs,
        rateRelativeError: s.frequencySource === 'detected' ? s.rate.relativeError : null,
        droppedLines: s.rate.droppedLines,
        goodLines: s.goodLines,
        badLines: s.badTotal,
        badByReason: { ...s.badLines },
        lastBadLine: s.lastBadLine ? `${s.lastBadLine.reason}: ${s.lastBadLine.text}` : null,
      };
    },
  };
}
