import { createLineReader } from './line-reader.js';
import type { LineReaderOverrides, LineReaderSnapshot, SerialReaderPort, StreamPartChange } from './line-reader-port.js';
import type { RowTiming } from '../stream/stream-hub.js';
import { NordicStreamReader } from './nordic/nordic-stream.js';
import { nordicUnits } from './nordic/units.js';

/** Valid Nordic frames that tell the stream is one (two: one could be chance). */
const NORDIC_FRAMES = 2;
/** Bytes looked at before giving up on telling: past this, the stream is read as lines. */
const SNIFF_BYTES = 64 * 1024;

export interface SerialSnapshot extends LineReaderSnapshot {
  protocol?: 'lines' | 'nordic';
  deviceName?: string;
  deviceDrops?: number;
  boardClockHz?: number;
}

export interface SerialReader extends SerialReaderPort {
  snapshot(): SerialSnapshot;
  /** Nordic: the reader's own counters; null for lines or while telling. */
  nordicStats(): ReturnType<NordicStreamReader['stats']> | null;
  readonly nordic: NordicStreamReader;
}

type RowsCb = (values: ArrayLike<number>, rows: number, axisCount: number, timing: RowTiming) => void;

/**
 * The reader of a streaming serial board, whichever it speaks: numbers per line, or Nordic's data
 * forwarder (COBS frames of CBOR). With protocol 'auto' both readers see the first bytes until one
 * recognises the stream (two valid Nordic frames, or numeric lines of a settled width); from then
 * on only that one reads. Nothing before the decision is lost: each reader saw every byte.
 */
export function createSerialReader(o: LineReaderOverrides & { units?: string[] | null }): SerialReader {
  const want = o.protocol ?? 'lines';
  const lines = createLineReader(o);
  const nordic = new NordicStreamReader();
  let chosen: 'lines' | 'nordic' | null = want === 'auto' ? null : want;
  let sniffed = 0;
  const rowListeners: RowsCb[] = [];
  const partListeners: Array<(c: StreamPartChange) => void> = [];
  /** Nordic rows that came while still telling (copies: the reader reuses its arrays). */
  let pending: Array<{ values: Float64Array; rows: number; width: number; timing: RowTiming }> = [];

  lines.onRows((values, rows, width, timing) => {
    // Rows come once the width has settled: a numbers-per-line board, unless frames were seen.
    if (chosen === null && nordic.frameStats.frames === 0) chosen = 'lines';
    if (chosen !== 'lines') return;
    for (const cb of rowListeners) cb(values, rows, width, timing);
  });
  nordic.onBatch((b) => {
    const timing = { arrivalMs: b.arrivalMs, lines: b.lines };
    if (chosen === null) return void pending.push({ values: b.rows.slice(), rows: b.rowCount, width: b.width, timing });
    if (chosen !== 'nordic') return;
    for (const cb of rowListeners) cb(b.rows, b.rowCount, b.width, timing);
  });
  nordic.onPart((c) => {
    if (chosen === 'nordic') for (const cb of partListeners) cb({ part: c.part, lastReading: c.lastReading, sid: c.sid, previousSid: c.previousSid });
  });

  const decide = () => {
    if (chosen !== null) return;
    const frames = nordic.frameStats.frames;
    if (frames >= NORDIC_FRAMES) chosen = 'nordic';
    else if (lines.snapshot().width !== null && frames === 0) chosen = 'lines';
    else if (sniffed > SNIFF_BYTES) chosen = 'lines';
    if (chosen === null) return;
    const replay = pending;
    pending = [];
    if (chosen === 'nordic') for (const p of replay) for (const cb of rowListeners) cb(p.values, p.rows, p.width, p.timing);
  };

  return {
    push(chunk, atMs) {
      if (chosen !== 'nordic') lines.push(chunk, atMs);
      if (chosen !== 'lines') nordic.push(chunk, atMs);
      if (chosen === null) {
        sniffed += chunk.length;
        decide();
      }
    },
    onRows: (cb) => void rowListeners.push(cb),
    onPart: (cb) => void partListeners.push(cb),
    protocol: () => chosen,
    release: () => nordic.release(),
    lostBefore: (line) => (chosen === 'nordic' ? nordic.lostBefore(line) : lines.lostBefore(line)),
    // A Nordic board's losses are known as soon as the next sample comes: every reading is judged.
    judgedThrough: () => (chosen === 'nordic' ? Number.MAX_SAFE_INTEGER : lines.judgedThrough()),
    currentRate: () => {
      if (chosen !== 'nordic') return lines.currentRate();
      const hz = o.frequencyHz ?? nordic.session?.hz ?? null;
      return hz ? { frequencyHz: hz, relativeError: 0 } : null;
    },
    gapsBetween: (first, last) => (chosen === 'nordic' ? nordic.gapsBetween(first, last) : []),
    nordicStats: () => (chosen === 'nordic' ? nordic.stats() : null),
    nordic,
    snapshot(): SerialSnapshot {
      if (chosen !== 'nordic') {
        const s = lines.snapshot();
        return chosen === 'lines' ? { ...s, protocol: 'lines' } : { ...s, width: null };
      }
      const st = nordic.stats();
      const session = nordic.session;
      const width = nordic.width;
      const names = session ? [...session.names] : null;
      return {
        names: o.axes ?? names,
        width,
        units: o.units ?? (session ? nordicUnits(session.sensorType, session.names) : null),
        frequencyHz: session?.hz ?? st.tsHz,
        suggestedHz: null,
        jitterMs: null,
        rateRelativeError: null,
        droppedLines: st.lost,
        goodLines: st.received,
        badLines: st.badTotal,
        badByReason: { ...st.badByKind },
        lastBadLine: st.lastBad ? `${st.lastBad.kind}: ${st.lastBad.hex}` : null,
        protocol: 'nordic',
        ...(session ? { deviceName: session.deviceName } : {}),
        deviceDrops: st.deviceDrops,
        ...(st.tsHz !== null ? { boardClockHz: st.tsHz } : {}),
      };
    },
  };
}
