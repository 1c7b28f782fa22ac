import type { Category, Sample, StreamStats, StructuredLabel } from '../contract/contract.js';
import { CoreError } from '../errors.js';
import type { SampleStore } from '../samples/sample-store.js';
import type { StreamHub } from '../stream/stream-hub.js';
import type { AudioInput } from '../audio/audio-input.js';
import { AudioRecording } from '../audio/audio-recording.js';
import { CONFIRM_MAX_MS, StreamRecording } from './stream-recording.js';
import { countingRate, declaredRate, declaredTake } from './take-length.js';
import { PartedRecording } from './parted-recording.js';
import { lossCounters } from '../samples/quality/loss-counters.js';
import { takeGaps } from '../samples/quality/take-gaps.js';

/** What every source of a session is asked to record. */
export interface PartRequest {
  sourceId: string;
  label: string | null;
  category: Category;
  metadata: Record<string, string>;
}

export interface PartFinish {
  hmacKey: string | undefined;
  queue: boolean;
  /** The events of the source's rows [from, rows) (from: a part of a take a board restarted in). */
  structuredLabels: (rows: number, from?: number) => StructuredLabel[] | null;
  /** The session reached its set length (not stopped by hand): a part that keeps its own count may finish it. */
  atLength: boolean;
  /** The session ended before it really began (another source failed to start): why, kept as the sample's note; the sample is marked incomplete. */
  cutShort?: string | undefined;
  /** Said first in the saved sample's note (e.g. "requested by the platform"). */
  note?: string | undefined;
}

/** A part's own note after the session's: "requested by …; incomplete: …". */
export function joinNotes(...notes: Array<string | null | undefined>): string | null {
  return notes.filter(Boolean).join('; ') || null;
}

/**
 * One source's share of a recording session, whatever it records to: a sensor stream becomes an
 * acquisition file, a microphone a WAV. The session only sees positions, interruptions and a
 * finished sample.
 */
export interface CapturePart {
  readonly sourceId: string;
  /** Rows (frames for audio) recorded so far: where an event mark lands in this part. */
  readonly rows: number;
  /** Set when the source dropped out mid-way; the part is then saved as incomplete. */
  readonly interruption: unknown;
  onInterrupt(cb: (err: unknown) => void): void;
  /**
   * Every source of the session has started: the take begins now. What the part recorded before
   * (while later sources were starting) is left out of its sample, and its length counts from here;
   * never called when the session fails to start, so what it recorded then is kept whole.
   */
  begin(): void;
  /** Called once the part holds its set length (counted in its own rows or frames); never without one. */
  onFull(cb: () => void): void;
  /** One sample; several when the source restarted mid-take (a Nordic board: one per session, never joined). */
  finish(o: PartFinish): Promise<Sample | Sample[]>;
  discard(): Promise<void>;
}

/** A stream of numeric rows (serial board, simulator), recorded through the hub's taps. */
export async function sensorPart(
  hub: StreamHub,
  store: SampleStore,
  req: PartRequest & { deviceName: string; lengthMs: number | null },
  stats: () => StreamStats | undefined,
): Promise<CapturePart> {
  const info = hub.info(req.sourceId);
  if (!info) throw new CoreError('NotFound', `"${req.sourceId}" is not streaming; start it before recording.`);
  // A source that numbers its samples (a Nordic board) can restart mid-take: its take goes in parts.
  if (hub.gapsBetween(req.sourceId, 0, 0) !== null) return partedSensorPart(hub, store, req, stats, info.rateHz);
  const reading = hub.reading(req.sourceId);
  // A reader counts at its own estimate as it stands (once close enough; see countingRate), not at
  // the announced rate: that moves by 1 % steps, and is a placeholder until the first estimate.
  const rateHz = () => (reading ? countingRate(reading.rate()) : hub.measuresRate(req.sourceId) ? null : (hub.info(req.sourceId)?.rateHz ?? null));
  const { lengthMs, ...request } = req;
  const rec = await StreamRecording.start(hub, store, {
    ...request,
    deviceType: info.simulated ? 'SIMULATED' : req.sourceId.split(':')[0]!.toUpperCase(),
    length: lengthMs ? { ms: lengthMs, rateHz } : undefined,
    beginsLater: true,
  });
  let atStart = stats();
  return partOver(req.sourceId, rec, {
    begin: () => {
      rec.begin();
      atStart = stats();
    },
    onFull: (cb) => rec.length?.onFull(cb),
    finish: async (o) => {
      // The take's own losses, once the reader has judged its last reading (see lostInTake).
      const lost = await rec.lostInTake(reading, CONFIRM_MAX_MS);
      const now = hub.info(req.sourceId) ?? rec.info;
      const st = stats();
      // One rule with `record serial` (see declaredTake); a given rate is the rate.
      const after = rec.rateMeasured ? (reading?.rate()?.frequencyHz ?? st?.frequencyHz ?? null) : null;
      const take = !rec.rateMeasured ? { hz: null, rows: rec.rows }
        : rec.length ? declaredTake(rec.length.lengthMs, rec.rows, rec.length.full ? rec.length.countedHz : null, after)
        : { hz: declaredRate(null, after), rows: rec.rows };
      const rateHz = take.hz ?? now.rateHz;
      return rec.finish({
        intervalMs: 1000 / rateHz,
        rows: take.rows,
        hmacKey: o.hmacKey,
        incomplete: rec.interruption !== null || o.cutShort !== undefined,
        ...(o.cutShort === undefined && o.note === undefined ? {} : { note: joinNotes(o.note, o.cutShort === undefined ? (rec.interruption !== null ? 'incomplete: the source stopped during the capture' : null) : `incomplete: ${o.cutShort}`) ?? undefined }),
        queue: o.queue && rec.interruption === null,
        structuredLabels: o.structuredLabels(take.rows),
        extra: { source: req.sourceId, rejected_lines: Math.max(0, (st?.badLines ?? 0) - (atStart?.badLines ?? 0)), frequency_hz: rateHz, jitter_ms: st?.jitterMs ?? null, ...lossCounters(st, atStart), ...(lost === null ? {} : { dropped_lines: lost }), ...knownLosses(hub, req.sourceId, rec, rateHz) },
      });
    },
  });
}

/**
 * A Nordic board's share of a session: counted in the board's samples at its own rate, every gap
 * known, and a board restart ending one part of the take and starting the next (one sample each,
 * said in their notes), the set length counted over both.
 */
async function partedSensorPart(
  hub: StreamHub,
  store: SampleStore,
  req: PartRequest & { deviceName: string; lengthMs: number | null },
  stats: () => StreamStats | undefined,
  rateHz: number,
): Promise<CapturePart> {
  const { lengthMs, ...request } = req;
  const rec = await PartedRecording.start(hub, store, { ...request, deviceType: 'NORDIC_DATA_FORWARDER', lengthMs, rateHz, beginsLater: true });
  let atStart = stats();
  return partOver(req.sourceId, rec, {
    begin: () => {
      rec.begin();
      atStart = stats();
    },
    onFull: (cb) => rec.onFull(cb),
    finish: (o) => {
      const st = stats();
      return rec.finish({
        hmacKey: o.hmacKey,
        queue: o.queue && rec.interruption === null,
        cutShort: o.cutShort,
        note: o.note ?? null,
        // Each part gets the events marked in its own rows, counted from its first.
        structuredLabels: (offset, rows) => o.structuredLabels(offset + rows, offset),
        extra: (p) => {
          const gaps = p.firstReading !== null && p.lastReading !== null ? takeGaps(hub.gapsBetween(req.sourceId, p.firstReading, p.lastReading) ?? [], p.firstReading, rateHz) : [];
          return {
            source: req.sourceId, frequency_hz: rateHz, device_name: st?.deviceName ?? null, board_ts_hz: st?.boardClockHz ?? null,
            rejected_lines: Math.max(0, (st?.badLines ?? 0) - (atStart?.badLines ?? 0)),
            ...gapCounts(gaps),
            ...(p.restart ? { restarted: { previous_sid: p.restart['previousSid'] ?? null, sid: p.restart['sid'] ?? null } } : {}),
          };
        },
      });
    },
  });
}

/**
 * A source that numbers its samples (a Nordic board) knows its take's losses exactly: each gap
 * with where it is (s from the take's first row), and how much of it the board dropped itself.
 * These replace the estimated `dropped_lines`.
 */
function knownLosses(hub: StreamHub, sourceId: string, rec: StreamRecording, hz: number): Record<string, unknown> {
  if (rec.firstReading === null || rec.lastReading === null) return {};
  const gaps = hub.gapsBetween(sourceId, rec.firstReading, rec.lastReading);
  if (gaps === null) return {};
  return gapCounts(takeGaps(gaps, rec.firstReading, hz));
}

/** A numbered source's take: its gaps and their totals (the board's own drops apart from the link's). */
function gapCounts(gaps: ReturnType<typeof takeGaps>): Record<string, unknown> {
  const lost = gaps.reduce((n, g) => n + g.count, 0);
  const device = gaps.reduce((n, g) => n + g.device, 0);
  return { protocol: 'nordic', gaps, lost_samples: lost, device_drops: device, transport_lost: lost - device, dropped_lines: lost };
}

/** What every kind of part shows the same way: its recording's rows, interruption and discard. */
function partOver(
  sourceId: string,
  rec: Pick<StreamRecording, 'rows' | 'interruption' | 'onInterrupt' | 'discard'>,
  own: Pick<CapturePart, 'begin' | 'onFull' | 'finish'>,
): CapturePart {
  return {
    sourceId,
    get rows() {
      return rec.rows;
    },
    get interruption() {
      return rec.interruption;
    },
    onInterrupt: (cb) => rec.onInterrupt(cb),
    discard: () => rec.discard(),
    ...own,
  };
}

/** How long a microphone may take to deliver its set length after the session's timer ran out (the device buffers ~0.2 s). */
const AUDIO_TAIL_MS = 3000;

/**
 * A microphone, recorded straight from the capture into a WAV (16-bit mono). Its set length is
 * counted in frames, not by the session's timer, so the file holds exactly that much audio.
 */
export async function audioPart(
  input: AudioInput,
  store: SampleStore,
  req: PartRequest & { lengthMs: number | null; preRollMs: number },
): Promise<CapturePart> {
  // A capture that just opened needs a moment before real audio flows (device warm-up).
  await input.whenLive(10_000);
  let interruption: CoreError | null = null;
  const listeners: Array<(err: unknown) => void> = [];
  let settle!: (o: PartFinish) => void;
  const late = new Promise<PartFinish>((r) => (settle = r));
  const rec = await AudioRecording.start(input, store, {
    label: req.label,
    category: req.category,
    metadata: req.metadata,
    lengthMs: req.lengthMs,
    preRollMs: req.preRollMs,
    extra: { source: req.sourceId },
    beginsLater: true,
    // Reaching its length or losing the device ends the audio, but the sample is saved when the
    // session finishes: only then are the event marks and the queue decision final.
    atSave: async (frames, error) => {
      const o = await late;
      return { structuredLabels: o.structuredLabels(frames), queue: o.queue && error === null, cutShort: o.cutShort, note: o.note };
    },
  });
  const offError = input.errors.on((err) => {
    interruption ??= err;
    for (const cb of listeners) cb(err);
  });
  let asked = false; // finish() or discard() was called: an error from then on is theirs to report
  void rec.done.finally(offError).catch((err: unknown) => {
    // The recording ended itself on an error (a write failed: disk full) while the session still
    // records: said at once, like a source dropping out, and the session stops if nothing else records.
    if (asked) return;
    interruption ??= err instanceof CoreError ? err : new CoreError('Unavailable', String(err));
    for (const cb of listeners) cb(interruption);
  });
  return {
    sourceId: req.sourceId,
    get rows() {
      return rec.frames;
    },
    get interruption() {
      return interruption;
    },
    onInterrupt: (cb) => void listeners.push(cb),
    begin: () => rec.begin(),
    // The recording stops taking audio at its frame count (or on an error, said through onInterrupt).
    onFull: (cb) => void (req.lengthMs !== null ? rec.ended.then(cb) : undefined),
    finish: async (o) => {
      asked = true;
      settle(o);
      if (o.atLength && req.lengthMs !== null && interruption === null) {
        const tail = setTimeout(() => void rec.stop(), AUDIO_TAIL_MS);
        try {
          return (await rec.done).sample;
        } finally {
          clearTimeout(tail);
        }
      }
      return (await rec.stop()).sample;
    },
    discard: async () => {
      asked = true;
      offError();
      await rec.discard();
    },
  };
}
